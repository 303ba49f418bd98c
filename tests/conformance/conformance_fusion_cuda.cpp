// The conformance suite on Fusion<Cuda> and Autodiff<Fusion<Cuda>> (float inputs requiring grad): elementwise
// chains run as generated kernels and give PyTorch's values. Skipped, with a message, where no GPU is visible.
#include "require_cuda.h"
#include "runner.h"

namespace scorch::conformance {
namespace {

SCORCH_REQUIRE_CUDA_DEVICE("Fusion<Cuda> conformance suite");

SCORCH_CONFORMANCE_SUITE(FusionCudaConformance, FusionCuda)
SCORCH_CONFORMANCE_SUITE(AutodiffFusionCudaConformance, Autodiff<FusionCuda>)

}  // namespace
}  // namespace scorch::conformance
