#include "scorch/data/sources/csv.h"

#include <fstream>
#include <sstream>

namespace scorch::data {
namespace {

/// Splits one record starting at pos (which may span lines inside quotes); advances pos and line.
std::vector<std::string> next_record(const std::string& text, size_t& pos, size_t& line, char delimiter,
                                     const std::string& path) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  size_t start_line = line;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (quoted) {
      if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') fields.back() += '"', ++pos;
      else if (c == '"') quoted = false;
      else {
        if (c == '\n') ++line;
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == delimiter) {
      fields.emplace_back();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ++pos;
      ++pos;
      ++line;
      return fields;
    } else {
      fields.back() += c;
    }
  }
  if (quoted)
    throw FormatError("read_csv", path + ":" + std::to_string(start_line) + ": a quoted field is never closed");
  ++line;
  return fields;
}

std::string read_file(const std::string& path, const char* op) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(op, "cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

const std::string& CsvRow::at(const std::string& column) const {
  auto it = columns_->find(column);
  if (it == columns_->end()) throw FormatError("read_csv", where_ + ": no column '" + column + "'");
  return fields_[it->second];
}

std::vector<CsvRow> read_csv(const std::string& path, char delimiter) {
  std::string text = read_file(path, "read_csv");
  size_t pos = 0, line = 1;
  if (text.empty()) throw FormatError("read_csv", path + ": empty file (no header)");
  auto header = next_record(text, pos, line, delimiter, path);
  auto columns = std::make_shared<std::map<std::string, size_t>>();
  for (size_t i = 0; i < header.size(); ++i) (*columns)[header[i]] = i;
  std::vector<CsvRow> rows;
  while (pos < text.size()) {
    size_t row_line = line;
    auto fields = next_record(text, pos, line, delimiter, path);
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    std::string where = path + ":" + std::to_string(row_line);
    if (fields.size() != header.size())
      throw FormatError("read_csv", where + ": " + std::to_string(fields.size()) + " fields, the header has " +
                                        std::to_string(header.size()));
    rows.emplace_back(columns, std::move(fields), std::move(where));
  }
  return rows;
}

std::vector<nlohmann::json> read_json_rows(const std::string& path) {
  std::istringstream in(read_file(path, "read_json_rows"));
  std::vector<nlohmann::json> rows;
  std::string text;
  for (size_t line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      rows.push_back(nlohmann::json::parse(text));
    } catch (const nlohmann::json::exception& e) {
      throw FormatError("read_json_rows", path + ":" + std::to_string(line) + ": " + e.what());
    }
  }
  return rows;
}

}  // namespace scorch::data
