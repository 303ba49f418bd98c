// Dyn's "fusion<cuda>" stack ("fusion<cuda:1>" is card 1): every op of the table on Fusion<Cuda>, compiled once here.
#include "scorch/dyn/stack_of.h"
#include "scorch/stacks/fusion_cuda/autodiff.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
void register_stack_fusion_cuda() {
  register_stack<FusionCuda>("fusion<cuda>", indexed_devices<CudaDevice>("fusion<cuda>"), cuda_unavailable);
}
}  // namespace scorch::dyn
