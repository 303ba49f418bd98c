// ModuleOps<Cpu>, compiled once for Autodiff<Cpu>.
#include "scorch/autodiff/autodiff_cpu.h"
#include "scorch/autodiff/ops/module_ops_impl.h"

namespace scorch::autodiff {
template struct ModuleOps<Cpu>;
}  // namespace scorch::autodiff
