// Dyn's "fusion<cpu>" stack: every op of the table on Fusion<Cpu>, compiled once here.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/backends/cpu/fusion/executor.h"
#include "scorch/dyn/stack_of.h"
#include "scorch/fusion/fusion.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
void register_stack_fusion_cpu() {
  register_stack<Fusion<Cpu>>("fusion<cpu>", single_device<CpuDevice>("fusion<cpu>"));
}
}  // namespace scorch::dyn
