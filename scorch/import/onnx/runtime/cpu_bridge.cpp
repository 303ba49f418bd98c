// Runtime<Cpu>: the interpreter (compiled once, on Dyn) run on Dyn's "cpu" stack.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/import/onnx/runtime/bridge.h"
#include "scorch/stacks/registrations.h"

namespace scorch::onnx {
SCORCH_ONNX_BRIDGE_ON(Cpu, dyn::register_stack_cpu)
}  // namespace scorch::onnx
