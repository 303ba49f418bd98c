// The conformance suite on Fusion<Cpu> and Autodiff<Fusion<Cpu>> (float inputs requiring grad): recorded,
// fused elementwise ops give the same values as PyTorch, like the Cpu backend they run on.
#include "runner.h"

namespace scorch::conformance {
namespace {
SCORCH_CONFORMANCE_SUITE(FusionConformance, FusionCpu)
SCORCH_CONFORMANCE_SUITE(AutodiffFusionConformance, Autodiff<FusionCpu>)
}  // namespace
}  // namespace scorch::conformance
