#pragma once
// Threaded entry points over the packed GEMM: one product split across the pool's threads.
#include "scorch/backends/cpu/kernels/gemm.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::blas {

/// Products below this many multiply-adds stay on the calling thread.
inline constexpr double kParallelWork = 1 << 21;

/// C[m, n] (+)= A·B, split over threads along the larger of m and n in whole register tiles.
template <class C> void gemm_parallel(size_t m, size_t n, size_t k, gemm::Strided<C> a, gemm::Strided<C> b, C* c,
                                      size_t ldc, bool accumulate = false) {
  using Blk = gemm::Blocking<C>;
  if (num_threads() <= 1 || static_cast<double>(m) * n * k < kParallelWork) {
    gemm::strided<C>(m, n, k, a, b, c, ldc, accumulate);
    return;
  }
  if (m / Blk::kMR >= n / Blk::kNR) {
    size_t tiles = (m + Blk::kMR - 1) / Blk::kMR;
    parallel_for(tiles, 1, [&](size_t tb, size_t te) {
      size_t r0 = tb * Blk::kMR, r1 = std::min(m, te * Blk::kMR);
      gemm::Strided<C> part{a.data + static_cast<ptrdiff_t>(r0) * a.row_stride, a.row_stride, a.col_stride};
      gemm::strided<C>(r1 - r0, n, k, part, b, c + r0 * ldc, ldc, accumulate);
    });
  } else {
    size_t tiles = (n + Blk::kNR - 1) / Blk::kNR;
    parallel_for(tiles, 1, [&](size_t tb, size_t te) {
      size_t c0 = tb * Blk::kNR, c1 = std::min(n, te * Blk::kNR);
      gemm::Strided<C> part{b.data + static_cast<ptrdiff_t>(c0) * b.col_stride, b.row_stride, b.col_stride};
      gemm::strided<C>(m, c1 - c0, k, a, part, c + c0, ldc, accumulate);
    });
  }
}

}  // namespace scorch::backends::cpu::blas

namespace scorch::backends::cpu::blas {

/// A B packer whose columns start at offset: a slice of the product's columns.
template <class P> struct ColumnSlice {
  const P& pack;
  size_t offset;
  template <class T> void operator()(size_t r0, size_t kc, size_t c0, size_t nr, T* dst) const {
    pack(r0, kc, c0 + offset, nr, dst);
  }
};

/// An A packer whose rows start at offset: a slice of the product's rows.
template <class P> struct RowSlice {
  const P& pack;
  size_t offset;
  template <class T> void operator()(size_t r0, size_t mr, size_t c0, size_t kc, T* dst) const {
    pack(r0 + offset, mr, c0, kc, dst);
  }
};

/// C[m, n] (+)= A·B with any packers, split over threads in whole register tiles along the dimension with more
/// tiles: each thread packs only its slice of that operand (a 512 × 49 product splits its rows, not 48 + 1 columns).
template <class C, class PackA, class PackB> void run_parallel(size_t m, size_t n, size_t k, const PackA& pack_a,
                                                               const PackB& pack_b, C* c, size_t ldc, bool accumulate) {
  using Blk = gemm::Blocking<C>;
  if (num_threads() <= 1 || static_cast<double>(m) * n * k < kParallelWork) {
    gemm::run<C>(m, n, k, pack_a, pack_b, c, ldc, accumulate);
    return;
  }
  size_t row_tiles = (m + Blk::kMR - 1) / Blk::kMR, col_tiles = (n + Blk::kNR - 1) / Blk::kNR;
  if (row_tiles > col_tiles) {
    parallel_for(row_tiles, 1, [&](size_t tb, size_t te) {
      size_t r0 = tb * Blk::kMR, r1 = std::min(m, te * Blk::kMR);
      gemm::run<C>(r1 - r0, n, k, RowSlice<PackA>{pack_a, r0}, pack_b, c + r0 * ldc, ldc, accumulate);
    });
    return;
  }
  parallel_for(col_tiles, 1, [&](size_t tb, size_t te) {
    size_t c0 = tb * Blk::kNR, c1 = std::min(n, te * Blk::kNR);
    gemm::run<C>(m, c1 - c0, k, pack_a, ColumnSlice<PackB>{pack_b, c0}, c + c0, ldc, accumulate);
  });
}

}  // namespace scorch::backends::cpu::blas
