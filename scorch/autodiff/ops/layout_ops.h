#pragma once
// Autodiff<B> float layout, indexing and sorting ops: each gradient moves values back to where
// the forward took them from.
#include <utility>
#include <vector>

#include "scorch/autodiff/ops/common.h"
#include "scorch/backend/options.h"

namespace scorch::autodiff {

template <class B> struct LayoutOps : OpsBase<B> {
  SCORCH_AUTODIFF_OPS_NAMES(OpsBase<B>);

  SCORCH_AUTODIFF_LAYOUT_OPS
};

}  // namespace scorch::autodiff
