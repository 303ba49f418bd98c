// UnaryOps<Cpu>, compiled once for Autodiff<Cpu>.
#include "scorch/autodiff/autodiff_cpu.h"
#include "scorch/autodiff/ops/unary_ops_impl.h"

namespace scorch::autodiff {
template struct UnaryOps<Cpu>;
}  // namespace scorch::autodiff
