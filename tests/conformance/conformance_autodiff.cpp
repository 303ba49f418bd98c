// The conformance suite on Autodiff<Cpu>, float inputs requiring grad: every op's forward
// through the recording path matches PyTorch.
#include "runner.h"

namespace scorch::conformance {
namespace {
SCORCH_CONFORMANCE_SUITE(AutodiffConformance, Autodiff<Cpu>)
}  // namespace
}  // namespace scorch::conformance
