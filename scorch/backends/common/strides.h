#pragma once
// Stride arithmetic of strided-view tensors (Cpu, Cuda), written once.
#include <algorithm>
#include <array>
#include <cstdint>

#include "scorch/core/shape.h"

namespace scorch::strides {

using Strides = std::array<int64_t, kMaxRank>;

/// True when strides lay shape out row-major with no gaps (size-1 dims may have any stride).
inline bool row_major(const Shape& shape, const Strides& strides) {
  int64_t expected = 1;
  for (size_t i = shape.rank(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= static_cast<int64_t>(shape[i]);
  }
  return true;
}

/// Strides of a view (shape, strides) broadcast to target: dims aligned on the right, 0 where the
/// view has size 1 (or no dim) and target does not.
inline Strides broadcast(const Shape& shape, const Strides& strides, const Shape& target) {
  Strides s{};
  size_t lead = target.rank() - shape.rank();
  for (size_t i = lead; i < target.rank(); ++i) {
    size_t k = i - lead;
    s[i] = (shape[k] == 1 && target[i] != 1) ? 0 : strides[k];
  }
  return s;
}

/// Strides that view the elements of (shape, strides) in row-major order as `target`, without a copy, or false
/// when the layout does not allow it (a dim of target spans memory that is not evenly strided). Each run of dims
/// that are contiguous with one another ("chunk") must be split or merged into whole dims of target.
inline bool view_as(const Shape& shape, const Strides& strides, const Shape& target, Strides& out) {
  out = Strides{};
  if (shape.num_elements() == 0 || shape.rank() == 0) {
    int64_t expected = 1;
    for (size_t i = target.rank(); i-- > 0; expected *= static_cast<int64_t>(std::max<size_t>(target[i], 1)))
      out[i] = expected;
    return shape.num_elements() == target.num_elements();
  }
  int64_t view_d = static_cast<int64_t>(target.rank()) - 1;
  int64_t base = strides[shape.rank() - 1], chunk = 1, taken = 1;
  for (size_t d = shape.rank(); d-- > 0;) {
    chunk *= static_cast<int64_t>(shape[d]);
    bool chunk_ends = d == 0 || (shape[d - 1] != 1 && strides[d - 1] != chunk * base);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (taken < chunk || target[static_cast<size_t>(view_d)] == 1)) {
      out[static_cast<size_t>(view_d)] = taken * base;
      taken *= static_cast<int64_t>(target[static_cast<size_t>(view_d)]);
      --view_d;
    }
    if (taken != chunk) return false;
    if (d > 0) base = strides[d - 1], chunk = 1, taken = 1;
  }
  return view_d == -1;
}

}  // namespace scorch::strides
