// The conformance suite on LibTorch and on Autodiff<LibTorch> (float inputs requiring grad): the
// same fixtures from PyTorch as the Cpu backend passes.
#include "runner.h"

namespace scorch::conformance {
namespace {
SCORCH_CONFORMANCE_SUITE(LibTorchConformance, LibTorch)
SCORCH_CONFORMANCE_SUITE(AutodiffLibTorchConformance, Autodiff<LibTorch>)
}  // namespace
}  // namespace scorch::conformance
