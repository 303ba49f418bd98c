#pragma once
// Stride arithmetic of strided-view tensors (Cpu, Cuda), written once.
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

}  // namespace scorch::strides
