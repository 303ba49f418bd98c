// scorch-micro-export: a record (or an ONNX model) as C++ constant weights for the micro runtime (micro_export.h).
// Usage: scorch-micro-export MODEL --name NAME [--out-dir DIR] [--namespace NS] [--config config.json] [--int8]
//        [--keep-f32 key,key] [--transpose key,key]   -> DIR/NAME.h and DIR/NAME.cpp
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "scorch/core/error.h"
#include "scorch/micro/export/micro_export.h"
#include "scorch/module/formats/json_parse.h"

namespace {

constexpr const char* kUsage =
    "usage: scorch-micro-export MODEL --name NAME [--out-dir DIR] [--namespace NS] [--config config.json] [--int8] "
    "[--keep-f32 key,key] [--transpose key,key]\n  MODEL: .mpk, .mpk.gz, .bin, .bin.gz, .json, .json.gz, .safetensors "
    "or .onnx\n";

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",")
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else item += c;
  return out;
}

// Writes each (path, text) to a temporary beside it, checks every write, then renames them all into place: a
// failed write leaves the old files.
void write_files(const std::vector<std::pair<std::filesystem::path, std::string>>& files) {
  for (const auto& [path, text] : files) {
    std::ofstream out(path.string() + ".tmp", std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw scorch::IoError("micro-export", "cannot write '" + path.string() + ".tmp'");
  }
  for (const auto& [path, text] : files) std::filesystem::rename(path.string() + ".tmp", path);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scorch::micro_export;
  std::string model, name, out_dir = ".", config_path;
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return std::cout << kUsage, 0;
    bool has_value = i + 1 < argc;
    if (arg == "--name" && has_value) name = argv[++i];
    else if (arg == "--out-dir" && has_value) out_dir = argv[++i];
    else if (arg == "--namespace" && has_value) options.name_space = argv[++i];
    else if (arg == "--config" && has_value) config_path = argv[++i];
    else if (arg == "--keep-f32" && has_value) options.keep_f32 = split(argv[++i]);
    else if (arg == "--transpose" && has_value) options.transpose = split(argv[++i]);
    else if (arg == "--int8") options.int8 = true;
    else if (!arg.starts_with("--") && model.empty()) model = arg;
    else return std::cerr << "scorch-micro-export: unknown argument '" << arg << "'\n" << kUsage, 2;
  }
  if (model.empty() || name.empty()) return std::cerr << kUsage, 2;
  if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
    return std::cerr << "scorch-micro-export: --name '" << name << "' must be letters, digits, '_' or '-'\n", 2;
  try {
    options.source = model;
    nlohmann::json config = nlohmann::json::object();
    if (!config_path.empty()) {
      std::ifstream in(config_path);
      if (!in) throw scorch::IoError("micro-export", "cannot read the config '" + config_path + "'");
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      config = scorch::formats::parse_json_bounded<nlohmann::json>(text, "micro-export", config_path);
    }
    auto arrays = collect(load_record(model), options);
    Generated g = generate(arrays, config, options, name + ".h");
    std::filesystem::create_directories(out_dir);
    std::filesystem::path dir = out_dir;
    write_files({{dir / (name + ".h"), g.header}, {dir / (name + ".cpp"), g.source}});
    std::cout << "scorch-micro-export: " << arrays.size() << " arrays, " << g.flash_bytes << " bytes -> " << out_dir
              << "/" << name << ".{h,cpp}\n";
  } catch (const std::exception& e) {
    std::cerr << "scorch-micro-export: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
