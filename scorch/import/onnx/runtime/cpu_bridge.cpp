// Runtime<Cpu>: the interpreter (compiled once, on Dyn) run on Dyn's "cpu" stack.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/import/onnx/runtime/bridge.h"
#include "scorch/stacks/registrations.h"

namespace scorch::onnx {

template <> const dyn::Stack& bridge_stack<Cpu>() {
  static const dyn::Stack& stack = []() -> const dyn::Stack& {
    dyn::register_stack_cpu();
    return *dyn::stack_of<Cpu>;
  }();
  return stack;
}

SCORCH_ONNX_BRIDGE(Cpu)

}  // namespace scorch::onnx
