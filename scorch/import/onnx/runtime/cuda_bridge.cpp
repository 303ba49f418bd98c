// Runtime<Cuda>: the interpreter (compiled once, on Dyn) run on Dyn's "cuda" stack.
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/import/onnx/runtime/bridge.h"
#include "scorch/stacks/registrations.h"

namespace scorch::onnx {

template <> const dyn::Stack& bridge_stack<Cuda>() {
  static const dyn::Stack& stack = []() -> const dyn::Stack& {
    dyn::register_stack_cuda();
    return *dyn::stack_of<Cuda>;
  }();
  return stack;
}

SCORCH_ONNX_BRIDGE(Cuda)

}  // namespace scorch::onnx
