// The conformance suite on Cuda and on Autodiff<Cuda> (float inputs requiring grad): the same
// fixtures from PyTorch as the Cpu backend passes. Skipped, with a message, where no GPU is visible.
#include "runner.h"

namespace scorch::conformance {
namespace {

class RequireCudaDevice : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!backends::cuda::is_available())
      GTEST_SKIP() << "no CUDA device visible: the Cuda conformance suite is skipped";
  }
};
[[maybe_unused]] ::testing::Environment* const kRequireCuda =
    ::testing::AddGlobalTestEnvironment(new RequireCudaDevice);

SCORCH_CONFORMANCE_SUITE(CudaConformance, Cuda)
SCORCH_CONFORMANCE_SUITE(AutodiffCudaConformance, Autodiff<Cuda>)

}  // namespace
}  // namespace scorch::conformance
