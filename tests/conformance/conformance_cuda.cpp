// The conformance suite on Cuda and on Autodiff<Cuda> (float inputs requiring grad): the same
// fixtures from PyTorch as the Cpu backend passes. Skipped, with a message, where no GPU is visible.
#include "require_cuda.h"
#include "runner.h"

namespace scorch::conformance {
namespace {

SCORCH_REQUIRE_CUDA_DEVICE("Cuda conformance suite");

SCORCH_CONFORMANCE_SUITE(CudaConformance, Cuda)
SCORCH_CONFORMANCE_SUITE(AutodiffCudaConformance, Autodiff<Cuda>)

}  // namespace
}  // namespace scorch::conformance
