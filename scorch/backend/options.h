#pragma once
// Plain-data arguments that backend ops take besides tensors.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace scorch {

/// A resolved slice of one dim: indices start, start+step, ... below end (step > 0), or
/// end-1, end-1+step, ... at or above start (step < 0). 0 <= start <= end <= dim size.
struct SliceRange {
  size_t start = 0;
  size_t end = 0;
  int64_t step = 1;
  /// Number of indices the range selects.
  size_t length() const {
    size_t span = end - start, s = static_cast<size_t>(step < 0 ? -step : step);
    return (span + s - 1) / s;
  }
  /// The k-th selected index.
  size_t index(size_t k) const {
    return step > 0 ? start + k * static_cast<size_t>(step) : end - 1 - k * static_cast<size_t>(-step);
  }
};

/// One SliceRange per dim of the sliced tensor.
using SliceRanges = std::vector<SliceRange>;

}  // namespace scorch
