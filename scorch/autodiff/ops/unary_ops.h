#pragma once
// Autodiff<B> float ops: unary math and activations, each with its derivative.
#include "scorch/autodiff/ops/common.h"

namespace scorch::autodiff {

template <class B> struct UnaryOps : OpsBase<B> {
  SCORCH_AUTODIFF_OPS_NAMES(OpsBase<B>);

  SCORCH_AUTODIFF_UNARY_OPS
};

}  // namespace scorch::autodiff
