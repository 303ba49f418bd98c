// Dyn's "fusion<cpu>" stack: every op of the table on Fusion<Cpu>, compiled once here.
#include "scorch/dyn/stack_of.h"
#include "scorch/stacks/fusion_cpu/autodiff.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
void register_stack_fusion_cpu() { register_stack<FusionCpu>("fusion<cpu>", single_device<CpuDevice>("fusion<cpu>")); }
}  // namespace scorch::dyn
