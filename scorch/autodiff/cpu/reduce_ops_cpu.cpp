// ReduceOps<Cpu>, compiled once for Autodiff<Cpu>.
#include "scorch/autodiff/autodiff_cpu.h"
#include "scorch/autodiff/ops/reduce_ops_impl.h"

namespace scorch::autodiff {
template struct ReduceOps<Cpu>;
}  // namespace scorch::autodiff
