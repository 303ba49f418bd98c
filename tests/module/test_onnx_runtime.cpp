// The ONNX interpreter (scorch/import/onnx/runtime) against ONNX's backend node test suite (Debian's
// libonnx-testdata): every case runs on Cpu and its outputs are compared with the suite's, within ONNX's own
// tolerance (rtol 1e-3, atol 1e-7). Cases that fail are listed with the reason in fixtures/onnx/node_failures.txt;
// a failure not listed, or a listed case that passes, fails the test. Prints the pass count per operator.
#include <gtest/gtest.h>

#include "module/onnx_node_suite.h"
#include "scorch/backends/cpu/cpu_backend.h"

namespace scorch::onnx {
namespace {

TEST(OnnxRuntime, NodeSuiteOnCpu) {
  node_suite::run_all<Cpu>(std::string(SCORCH_MODULE_FIXTURES) + "/onnx/node_failures.txt");
}

}  // namespace
}  // namespace scorch::onnx
