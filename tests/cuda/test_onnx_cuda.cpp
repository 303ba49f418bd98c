// The ONNX interpreter on Cuda: ONNX's node test suite (the Cpu failures list plus
// fixtures/onnx/node_failures_cuda.txt) and the real architectures of fixtures/onnx/models, each compared with the
// suite's or PyTorch's outputs.
#include <filesystem>

#include "cuda/cuda_test_util.h"
#include "module/onnx_fixture_weights.h"
#include "module/onnx_node_suite.h"
#include "scorch/backends/cuda/cuda_backend.h"

namespace scorch::onnx {
namespace {
namespace fs = std::filesystem;

const fs::path kOnnxFixtures = fs::path(SCORCH_TEST_SOURCE_DIR) / "module" / "fixtures" / "onnx";

TEST(OnnxCuda, NodeSuite) {
  SCORCH_REQUIRE_CUDA();
  fs::path merged = fs::temp_directory_path() / ("scorch_onnx_cuda_failures_" + std::to_string(::getpid()));
  {
    std::ofstream out(merged);
    for (const char* list : {"node_failures.txt", "node_failures_cuda.txt"})
      out << std::ifstream(kOnnxFixtures / list).rdbuf();
  }
  node_suite::run_all<Cuda>(merged.string());
  fs::remove(merged);
}

TEST(OnnxCuda, ArchitecturesMatchPyTorch) {
  SCORCH_REQUIRE_CUDA();
  for (const char* name : {"resnet18", "mobilenet_v2", "encoder", "lstm_tagger"}) {
    SCOPED_TRACE(name);
    fs::path tmp = fs::temp_directory_path() / (std::string("scorch_onnx_cuda_") + name + std::to_string(::getpid()));
    fs::path model = fixtures::materialize(kOnnxFixtures / "models" / name, tmp);
    Runtime<Cuda> rt = load<Cuda>(model.string());
    TensorData input = read_tensor((kOnnxFixtures / "models" / name / "input_0.pb").string());
    TensorData expected = read_tensor((kOnnxFixtures / "models" / name / "output_0.pb").string());
    TensorData got = rt.run(std::vector<TensorData>{input}).at(0);
    EXPECT_EQ(node_suite::compare(got, expected, 1e-4, 1e-3), "");
    fs::remove_all(tmp);
  }
}

}  // namespace
}  // namespace scorch::onnx
