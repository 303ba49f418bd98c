#pragma once
// Strided N-operand loops: dims are collapsed where every operand is contiguous across them,
// then body(offsets, inner_strides, length) runs once per innermost row, rows split over threads.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "scorch/backends/cpu/cpu_tensor.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu {

/// A shape with N stride sets, collapsed to the fewest dims.
template <size_t N> struct LoopSpace {
  size_t rank = 0;
  std::array<size_t, kMaxRank> dims{};
  std::array<Strides, N> strides{};

  LoopSpace(const Shape& shape, const std::array<const Strides*, N>& operand_strides) {
    for (size_t d = 0; d < shape.rank(); ++d) {
      if (shape[d] == 1) continue;
      bool merge = rank > 0;
      for (size_t k = 0; k < N && merge; ++k)
        merge = strides[k][rank - 1] == (*operand_strides[k])[d] * static_cast<int64_t>(shape[d]);
      if (merge) {
        dims[rank - 1] *= shape[d];
        for (size_t k = 0; k < N; ++k) strides[k][rank - 1] = (*operand_strides[k])[d];
        continue;
      }
      dims[rank] = shape[d];
      for (size_t k = 0; k < N; ++k) strides[k][rank] = (*operand_strides[k])[d];
      ++rank;
    }
    if (rank == 0) {  // a single element
      dims[0] = 1;
      rank = 1;
    }
  }
  size_t inner() const { return dims[rank - 1]; }
  size_t rows() const {
    size_t r = 1;
    for (size_t d = 0; d + 1 < rank; ++d) r *= dims[d];
    return r;
  }
  /// Element offsets (relative to each operand's base) of the first element of a row.
  std::array<int64_t, N> row_offsets(size_t row) const {
    std::array<int64_t, N> off{};
    for (size_t d = rank - 1; d-- > 0;) {
      size_t i = row % dims[d];
      row /= dims[d];
      for (size_t k = 0; k < N; ++k) off[k] += static_cast<int64_t>(i) * strides[k][d];
    }
    return off;
  }
};

/// Runs body(offsets, inner_strides, length) over every row of shape, in parallel for large work.
template <size_t N, class Body>
void strided_rows(const Shape& shape, const std::array<const Strides*, N>& operand_strides, Body&& body) {
  LoopSpace<N> space(shape, operand_strides);
  size_t rows = space.rows(), inner = space.inner();
  std::array<int64_t, N> inner_strides{};
  for (size_t k = 0; k < N; ++k) inner_strides[k] = space.strides[k][space.rank - 1];
  // Fewer rows than threads (a tensor and a broadcast scalar collapse to one row): rows split into pieces.
  size_t pieces = rows >= num_threads() ? 1 : std::max<size_t>(1, std::min(num_threads(), inner / kElementwiseGrain));
  size_t piece = (inner + pieces - 1) / pieces;
  size_t grain = std::max<size_t>(1, kElementwiseGrain / std::max<size_t>(piece, 1));
  parallel_for(rows * pieces, grain, [&](size_t begin, size_t end) {
    for (size_t t = begin; t < end; ++t) {
      size_t start = t % pieces * piece, length = std::min(inner, start + piece) - start;
      std::array<int64_t, N> off = space.row_offsets(t / pieces);
      for (size_t k = 0; k < N; ++k) off[k] += static_cast<int64_t>(start) * inner_strides[k];
      if (length > 0) body(off, inner_strides, length);
    }
  });
}

}  // namespace scorch::backends::cpu
