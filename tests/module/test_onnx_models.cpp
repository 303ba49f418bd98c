// Real architectures exported by PyTorch 1.13 (fixtures/onnx/models: ResNet-18, MobileNetV2, a BERT-like encoder,
// an LSTM tagger; weights regenerated from their recipe) run through onnx::load<Cpu> and match PyTorch's outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "module/onnx_fixture_weights.h"
#include "module/onnx_node_suite.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::onnx {
namespace {
namespace fs = std::filesystem;

const fs::path kModels = fs::path(SCORCH_MODULE_FIXTURES) / "onnx" / "models";

class OnnxModels : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxModels, MatchesPyTorch) {
  fs::path tmp = fs::temp_directory_path() / ("scorch_onnx_" + GetParam() + "_" + std::to_string(::getpid()));
  fs::path model = fixtures::materialize(kModels / GetParam(), tmp);
  Runtime<Cpu> rt = load<Cpu>(model.string());
  TensorData input = read_tensor((kModels / GetParam() / "input_0.pb").string());
  TensorData expected = read_tensor((kModels / GetParam() / "output_0.pb").string());
  // The load-time passes applied to the real exports: BatchNormalization folded into the convolutions, the
  // exported nine-node layer norms fused into one LayerNormalization each.
  auto count = [&](const char* op) {
    return std::count_if(rt.plan().nodes.begin(), rt.plan().nodes.end(),
                         [&](const Node& n) { return n.op_type == op; });
  };
  EXPECT_EQ(count("BatchNormalization"), 0);
  if (GetParam() == "encoder") {
    EXPECT_EQ(count("LayerNormalization"), 5);
    EXPECT_EQ(count("Pow"), 0);
  }
  auto outputs = rt.run(std::vector<TensorData>{input});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(node_suite::compare(outputs[0], expected, 1e-4, 1e-3), "");
  fs::remove_all(tmp);
}

INSTANTIATE_TEST_SUITE_P(Architectures, OnnxModels,
                         ::testing::Values("resnet18", "mobilenet_v2", "encoder", "lstm_tagger"));

}  // namespace
}  // namespace scorch::onnx
