#pragma once
// Autodiff<B> float ops: creation and data, casts, comparisons and other ops without a
// gradient (passed to the inner backend), arithmetic, matmul, clamps and masks.
#include "scorch/autodiff/ops/common.h"
#include "scorch/core/distribution.h"
#include "scorch/core/tensor_data.h"

namespace scorch::autodiff {

template <class B> struct BasicOps : OpsBase<B> {
  SCORCH_AUTODIFF_OPS_NAMES(OpsBase<B>);
  using Device = typename B::Device;

  SCORCH_AUTODIFF_BASIC_OPS
};

}  // namespace scorch::autodiff
