#include "scorch/module/config.h"

#include <fstream>
#include <ostream>
#include <sstream>

#include "scorch/module/formats/codec.h"

namespace scorch::detail {

void config_error(const std::string& path, const std::string& why) { throw FormatError("config", path + ": " + why); }

void config_type_error(const std::string& path, std::string_view what, const Record& r) {
  config_error(
      path, "expected " + std::string(what) + ", found " + std::string(record_kind_name(r.kind())) + " " + describe(r));
}

ConfigReader::ConfigReader(const Record& r, std::string path, std::string_view type)
    : record_(r), path_(std::move(path)), type_(type) {
  if (!r.is_map()) config_type_error(path_, "a map of " + std::string(type) + " fields", r);
}

void ConfigReader::check_known(std::string_view names) const {
  for (const auto& [key, value] : record_.as_map()) {
    bool known = false;
    std::string_view rest = names;
    while (!rest.empty() && !known) {
      size_t comma = rest.find(',');
      known = trim(rest.substr(0, comma)) == key;
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    if (!known) config_error(at(key), "unknown field (" + std::string(type_) + " has no such field)");
  }
}

std::string config_to_json(const Record& r) { return formats::to_json_text(r, true); }

Record config_from_json(const std::string& text, const std::string& source) {
  return formats::from_json_text(std::as_bytes(std::span(text)), source);
}

void save_config_text(const std::string& path, const std::string& text) {
  formats::atomic_write(path, [&](formats::ByteSink& sink) { sink.write(text.data(), text.size()); });
}

std::string load_config_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("config", path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::ostream& print_config(std::ostream& os, const std::string& text) { return os << text; }

}  // namespace scorch::detail
