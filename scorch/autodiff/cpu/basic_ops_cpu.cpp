// BasicOps<Cpu>, compiled once for Autodiff<Cpu>.
#include "scorch/autodiff/autodiff_cpu.h"
#include "scorch/autodiff/ops/basic_ops_impl.h"

namespace scorch::autodiff {
template struct BasicOps<Cpu>;
}  // namespace scorch::autodiff
