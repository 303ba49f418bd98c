// web-tool: prepares the web pages' models and answers for the same inputs natively (examples/web/README.md).
//   web-tool export digits <guide artifact dir> <out dir>   digits.bin (half precision), digits.config.json,
//                                                           digits.labels.json and digits.onnx (checked by Scorch's
//                                                           ONNX runtime against the web model)
//   web-tool export icons <custom-image-dataset artifact dir> <out dir>
//   web-tool predict <out dir> <inputs.json>                the web models' outputs for {"model", "dims", "values"}
//                                                           as JSON {"probabilities": [[...]], "classes": [...]}
#include <scorch/import/onnx/runtime/runtime.h>
#include <scorch/module/formats/byte_io.h>
#include <scorch/module/formats/json_parse.h>
#include <scorch/web/web_model.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "../custom-image-dataset/model.h"
#include "../guide/training.hpp"
#include "onnx_export.h"
#include <scorch/core/cli.h>

namespace {

using namespace scorch;
using Json = nlohmann::json;
using HalfBin = BinFileRecorder<HalfPrecisionSettings>;

std::string read_text(const std::string& path) {
  formats::MappedFile file(path);  // IoError naming path when it cannot be read
  return {reinterpret_cast<const char*>(file.bytes().data()), file.bytes().size()};
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  if (!(file << text)) throw IoError("web-tool", path + ": cannot write");
}

/// The web model name loaded from out's files, as the page loads it.
std::unique_ptr<web::Model> load_exported(const std::string& name, const std::string& out) {
  return web::load_model(name, read_text(out + "/" + name + ".config.json"), HalfBin{}.load(out + "/" + name));
}

/// Throws unless the exported ONNX graph gives the web model's probabilities on a few drawn inputs.
void check_onnx(const std::string& out) {
  auto runtime = onnx::load<Cpu>(out + "/digits.onnx");
  auto scorch_model = load_exported("digits", out);
  auto ink = Tensor<Cpu, 3>::random({4, 28, 28}, Distribution::uniform(0.0, 1.0)).to_data();
  auto expected = scorch_model->run(ink), actual = runtime.run({ink}).at(0);
  auto a = actual.to_vector<float>(), e = expected.to_vector<float>();
  if (a.size() != e.size())
    throw ValueError("web-tool export", out + "/digits.onnx: " + std::to_string(a.size()) + " outputs, the web model " +
                                            std::to_string(e.size()));
  for (size_t i = 0; i < e.size(); ++i)
    if (!(std::abs(a[i] - e[i]) <= 1e-4f))  // NaN fails too
      throw ValueError("web-tool export", out + "/digits.onnx: ONNX output " + std::to_string(i) + " is " +
                                              std::to_string(a[i]) + ", the web model's " + std::to_string(e[i]));
}

void export_model(const std::string& name, const std::string& artifacts, const std::string& out) {
  std::filesystem::create_directories(out);
  if (name == "digits") {
    auto config = guide::TrainingConfig::load(artifacts + "/config.json").model;
    auto model = config.init_with<Cpu>(CompactRecorder{}.load(artifacts + "/model"));
    model.save_file(out + "/digits", HalfBin{});
    write_text(out + "/digits.config.json", config.to_json());
    write_text(out + "/digits.labels.json", Json({"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}).dump());
    web_tool::export_digits_onnx(model, out + "/digits.onnx");
    check_onnx(out);
  } else if (name == "icons") {
    auto config = icons::IconNetConfig(icons::kCategories.size());
    auto model = config.init<Cpu>().load_record(CompactRecorder{}.load(artifacts + "/model"));
    model.save_file(out + "/icons", HalfBin{});
    write_text(out + "/icons.config.json", config.to_json());
    write_text(out + "/icons.labels.json", Json(icons::kCategories).dump());
  } else {
    throw ValueError("web-tool export", "unknown model '" + name + "' (digits or icons)");
  }
  std::cout << "web-tool: " << name << " exported to " << out << "\n";
}

/// The web model's probabilities and top classes for the inputs file's values.
void predict(const std::string& out, const std::string& inputs_path) {
  auto inputs = formats::parse_json_bounded<Json>(read_text(inputs_path), "web-tool predict", inputs_path);
  std::string name;
  std::vector<size_t> dims;
  std::vector<float> values;
  try {
    name = inputs.at("model");
    dims = inputs.at("dims").get<std::vector<size_t>>();
    values = inputs.at("values").get<std::vector<float>>();
  } catch (const Json::exception& e) {
    throw FormatError("web-tool predict", inputs_path + ": expected {\"model\", \"dims\", \"values\"}: " + e.what());
  }
  auto probabilities = load_exported(name, out)->run(TensorData(values, Shape(dims)));
  auto p = probabilities.to_vector<float>();
  size_t rows = probabilities.shape()[0], classes = probabilities.shape()[1];
  Json result = {{"probabilities", Json::array()}, {"classes", Json::array()}};
  for (size_t r = 0; r < rows; ++r) {
    auto row = std::vector<float>(p.begin() + long(r * classes), p.begin() + long((r + 1) * classes));
    result["probabilities"].push_back(row);
    result["classes"].push_back(std::max_element(row.begin(), row.end()) - row.begin());
  }
  std::cout << result.dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           "usage: web-tool export digits|icons ARTIFACT_DIR OUT_DIR | predict "
                           "OUT_DIR INPUTS\nExports the web pages' models (ONNX and records) and answers for the same "
                           "inputs natively.");
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 4 && args[0] == "export") export_model(args[1], args[2], args[3]);
    else if (args.size() == 3 && args[0] == "predict") predict(args[1], args[2]);
    else
      throw ValueError("web-tool", "usage: web-tool export digits|icons ARTIFACT_DIR OUT_DIR | predict OUT_DIR INPUTS");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
