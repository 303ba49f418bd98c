// Dyn's "cuda" stack ("cuda:1" is card 1): every op of the table on Cuda, compiled once here.
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/dyn/stack_of.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
void register_stack_cuda() { register_stack<Cuda>("cuda", indexed_devices<CudaDevice>("cuda")); }
}  // namespace scorch::dyn
