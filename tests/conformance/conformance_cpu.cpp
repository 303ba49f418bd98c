// The conformance suite on the Cpu backend.
#include "runner.h"

namespace scorch::conformance {
namespace {
SCORCH_CONFORMANCE_SUITE(CpuConformance, Cpu)
}  // namespace
}  // namespace scorch::conformance
