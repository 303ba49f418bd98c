#pragma once
// Autodiff<B> float reductions: sums, means, products, max/min (with indices) and cumulative ops.
#include <utility>

#include "scorch/autodiff/ops/common.h"

namespace scorch::autodiff {

template <class B> struct ReduceOps : OpsBase<B> {
  SCORCH_AUTODIFF_OPS_NAMES(OpsBase<B>);

  SCORCH_AUTODIFF_REDUCE_OPS

 private:
  /// The product of every other element along dim, without division (zeros are fine).
  static P others_product(const P& x, size_t dim);
  /// Σ_{j>=i} x_j along dim (cumsum from the end): cumsum's gradient.
  static P reverse_cumsum(P x, size_t dim);
  /// cumprod's input gradient, exact where x has zeros (no division by them).
  static P cumprod_grad(const P& x, const P& y, const P& grad, size_t dim);
  /// (extreme value, index) along dim, recorded so the gradient goes to the index.
  static std::pair<T, IntP> extreme_with_indices(const char* name, T x, size_t dim, bool largest);
  /// max/min of every value, recorded as a reshape and a max_dim/min_dim.
  static T flat_extreme(T x, bool largest);
  /// cummax/cummin: the gradient of each output goes to the input it copied.
  static T running_extreme(const char* name, T x, size_t dim, bool largest);
};

}  // namespace scorch::autodiff
