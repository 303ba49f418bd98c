// LayoutOps<B>, compiled once per inner backend: the build defines SCORCH_AUTODIFF_INNER (the
// backend type) and SCORCH_AUTODIFF_INNER_HEADER (the header that declares Autodiff<B>).
#include SCORCH_AUTODIFF_INNER_HEADER
#include "scorch/autodiff/ops/layout_ops_impl.h"

namespace scorch::autodiff {
template struct LayoutOps<SCORCH_AUTODIFF_INNER>;
}  // namespace scorch::autodiff
