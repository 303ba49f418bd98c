// Runtime<Cuda>: the interpreter (compiled once, on Dyn) run on Dyn's "cuda" stack.
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/import/onnx/runtime/bridge.h"
#include "scorch/stacks/registrations.h"

namespace scorch::onnx {
SCORCH_ONNX_BRIDGE_ON(Cuda, dyn::register_stack_cuda)
}  // namespace scorch::onnx
