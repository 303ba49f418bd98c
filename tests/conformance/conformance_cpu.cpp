// The conformance suite on the static Cpu backend: the WebAssembly build's (tests/wasm), which has no Dyn.
#include "runner.h"

namespace scorch::conformance {
namespace {
SCORCH_CONFORMANCE_SUITE(CpuConformance, Cpu)
}  // namespace
}  // namespace scorch::conformance
