// Real architectures exported by PyTorch 1.13 (fixtures/onnx/models: ResNet-18, MobileNetV2, a BERT-like encoder,
// an LSTM tagger; weights regenerated from their recipe) run through onnx::load<Cpu> and match PyTorch's outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "module/onnx_fixture_weights.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::onnx {
namespace {
namespace fs = std::filesystem;

const fs::path kModels = fs::path(SCORCH_MODULE_FIXTURES) / "onnx" / "models";

/// Largest |got − expected| / (1e-4 + |expected|·1e-3 ... ) check: every element within atol + rtol·|expected|.
void expect_close(const TensorData& got, const TensorData& expected, double atol, double rtol) {
  ASSERT_EQ(got.shape(), expected.shape());
  auto a = got.convert(DType::F64).to_vector<double>(), b = expected.convert(DType::F64).to_vector<double>();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) - rtol * std::abs(b[i]));
  EXPECT_LE(worst, atol);
}

class OnnxModels : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxModels, MatchesPyTorch) {
  fs::path tmp = fs::temp_directory_path() / ("scorch_onnx_" + GetParam() + "_" + std::to_string(::getpid()));
  fs::path model = fixtures::materialize(kModels / GetParam(), tmp);
  Runtime<Cpu> rt = load<Cpu>(model.string());
  TensorData input = read_tensor((kModels / GetParam() / "input_0.pb").string());
  TensorData expected = read_tensor((kModels / GetParam() / "output_0.pb").string());
  auto outputs = rt.run(std::vector<TensorData>{input});
  ASSERT_EQ(outputs.size(), 1u);
  expect_close(outputs[0], expected, 1e-4, 1e-3);
  fs::remove_all(tmp);
}

INSTANTIATE_TEST_SUITE_P(Architectures, OnnxModels,
                         ::testing::Values("resnet18", "mobilenet_v2", "encoder", "lstm_tagger"));

}  // namespace
}  // namespace scorch::onnx
