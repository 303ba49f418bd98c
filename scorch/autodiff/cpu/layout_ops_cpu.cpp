// LayoutOps<Cpu>, compiled once for Autodiff<Cpu>.
#include "scorch/autodiff/autodiff_cpu.h"
#include "scorch/autodiff/ops/layout_ops_impl.h"

namespace scorch::autodiff {
template struct LayoutOps<Cpu>;
}  // namespace scorch::autodiff
