// ModuleOps<B>, compiled once per inner backend: the build defines SCORCH_AUTODIFF_INNER (the
// backend type) and SCORCH_AUTODIFF_INNER_HEADER (the header that declares Autodiff<B>).
#include SCORCH_AUTODIFF_INNER_HEADER
#include "scorch/autodiff/ops/module_ops_impl.h"

namespace scorch::autodiff {
template struct ModuleOps<SCORCH_AUTODIFF_INNER>;
}  // namespace scorch::autodiff
