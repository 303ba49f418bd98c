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

  static T reshape(T x, Shape shape);
  static T permute(T x, std::vector<size_t> axes);
  static T swap_dims(T x, size_t a, size_t b);
  static T flip(T x, std::vector<size_t> axes);
  static T expand(T x, Shape shape);
  static T slice(T x, SliceRanges ranges);
  static T slice_assign(T x, SliceRanges ranges, T values);
  static T cat(std::vector<T> parts, size_t dim);
  static T repeat_dim(T x, size_t dim, size_t times);
  static T unfold(T x, size_t dim, size_t size, size_t step);

  static T gather(size_t dim, T x, IntP indices);
  static T scatter_add(size_t dim, T x, IntP indices, T values);
  static T select(T x, size_t dim, IntP indices);
  static T select_add(T x, size_t dim, IntP indices, T values);

  static T sort(T x, size_t dim, bool descending);
  static std::pair<T, IntP> sort_with_indices(T x, size_t dim, bool descending);
};

}  // namespace scorch::autodiff
