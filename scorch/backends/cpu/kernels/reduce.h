#pragma once
// Reduction geometry: a contiguous tensor seen as [outer, n, inner] around the reduced dim.
#include <cstddef>

#include "scorch/backends/cpu/cpu_tensor.h"

namespace scorch::backends::cpu {

/// The [outer, n, inner] split of a shape around dim.
struct Lanes {
  size_t outer = 1, n = 1, inner = 1;
  Lanes(const Shape& s, size_t dim) {
    for (size_t i = 0; i < dim; ++i) outer *= s[i];
    n = s[dim];
    for (size_t i = dim + 1; i < s.rank(); ++i) inner *= s[i];
    // No element (a zero dim beside dim): every loop over the lanes is empty, however long dim is.
    if (outer == 0 || inner == 0) outer = inner = 0;
  }
};

/// shape with dim set to 1.
inline Shape keep_dim(Shape s, size_t dim) {
  s[dim] = 1;
  return s;
}

/// Accumulator type of a reduction over storage type E: double for floats, int64 for ints.
template <class E> using acc_t = std::conditional_t<std::is_floating_point_v<compute_t<E>>, double, int64_t>;

}  // namespace scorch::backends::cpu
