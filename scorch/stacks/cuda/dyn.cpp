// Dyn's "cuda" stack ("cuda:1" is card 1): every op of the table on Cuda, compiled once here.
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/backends/cuda/runtime.h"
#include "scorch/dyn/stack_of.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
std::string cuda_unavailable() { return backends::cuda::is_available() ? std::string() : "no CUDA device visible"; }
void register_stack_cuda() { register_stack<Cuda>("cuda", indexed_devices<CudaDevice>("cuda"), cuda_unavailable); }
}  // namespace scorch::dyn
