// The conformance suite on LibTorch: the same fixtures from PyTorch as the Cpu backend passes. Autodiff<LibTorch>
// is checked by the differential target (tests/differential), whose gradient runs compare it with Autodiff<Cpu>;
// compiling the cases once more for it here cost CI a minute of its time.
#include "runner.h"

namespace scorch::conformance {
namespace {
SCORCH_CONFORMANCE_SUITE(LibTorchConformance, LibTorch)
}  // namespace
}  // namespace scorch::conformance
