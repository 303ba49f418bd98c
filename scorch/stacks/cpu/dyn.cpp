// Dyn's "cpu" and "reference" stacks: every op of the table on Cpu, and on Reference (Cpu's kernels for the required
// ops, backend/provided's defaults for the rest), compiled once here.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/backends/reference/reference_backend.h"
#include "scorch/dyn/stack_of.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
void register_stack_cpu() {
  register_stack<Cpu>("cpu", single_device<CpuDevice>("cpu"));
  register_stack<Reference>("reference", single_device<CpuDevice>("reference"));
}
}  // namespace scorch::dyn
