#pragma once
// Threaded entry points over the packed GEMM: one product split across the pool's threads.
#include <algorithm>
#include <cstring>
#include <vector>

#include "scorch/backends/cpu/kernels/gemm.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::blas {

/// Products below this many multiply-adds stay on the calling thread.
inline constexpr double kParallelWork = 1 << 21;

/// Products with at most this many rows of A skip packing: B is streamed once (a classifier head at batch 1).
inline constexpr size_t kFewRows = 4;

/// Σ x[p]·y[p] over n contiguous values, in vector registers with several independent sums.
template <class C> C dot(const C* x, const C* y, size_t n) {
  typedef C Vec __attribute__((vector_size(gemm::kVecBytes)));
  constexpr size_t L = gemm::kVecBytes / sizeof(C), U = 4;
  Vec acc[U] = {};
  size_t p = 0;
  for (; p + U * L <= n; p += U * L)
    for (size_t u = 0; u < U; ++u) {
      Vec xv, yv;
      std::memcpy(&xv, x + p + u * L, sizeof(Vec));
      std::memcpy(&yv, y + p + u * L, sizeof(Vec));
      acc[u] += xv * yv;
    }
  Vec total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  C sum = 0;
  for (size_t l = 0; l < L; ++l) sum += total[l];
  for (; p < n; ++p) sum += x[p] * y[p];
  return sum;
}

/// out[j] (+)= Σ_p x[p]·b[p·ldb + j] for the whole vectors of columns in [jb, je), B's rows contiguous: blocks of 8
/// vectors held in registers while p runs down B, so B is read once and out written once (a layer's row-major weights
/// at batch 1). Returns the first column left (fewer than a vector's worth).
template <class C> size_t vector_times_rows(const C* x, const C* b, ptrdiff_t ldb, size_t k, size_t jb, size_t je,
                                            C* out, bool accumulate) {
  typedef C Vec __attribute__((vector_size(gemm::kVecBytes)));
  constexpr size_t L = gemm::kVecBytes / sizeof(C);
  auto block = [&]<size_t V>(size_t j) {
    Vec acc[V] = {};
    for (size_t p = 0; p < k; ++p) {
      Vec xv = Vec{} + x[p];
      const C* row = b + static_cast<ptrdiff_t>(p) * ldb + j;
#pragma GCC unroll 8
      for (size_t v = 0; v < V; ++v) {
        Vec bv;
        std::memcpy(&bv, row + v * L, sizeof(Vec));
        acc[v] += xv * bv;
      }
    }
#pragma GCC unroll 8
    for (size_t v = 0; v < V; ++v) {
      if (accumulate) {
        Vec old;
        std::memcpy(&old, out + j + v * L, sizeof(Vec));
        acc[v] += old;
      }
      std::memcpy(out + j + v * L, &acc[v], sizeof(Vec));
    }
  };
  size_t j = jb;
  for (; j + 8 * L <= je; j += 8 * L) block.template operator()<8>(j);
  for (; j + L <= je; j += L) block.template operator()<1>(j);
  return j;
}

/// C[m, n] (+)= A·B for m ≤ kFewRows, split over threads along n: dot products with B's columns when they are
/// contiguous, register blocks down B's rows when those are (vector_times_rows), else rows of B scaled and added.
/// A's rows are copied contiguous first.
template <class C>
void few_rows(size_t m, size_t n, size_t k, gemm::Strided<C> a, gemm::Strided<C> b, C* c, size_t ldc, bool accumulate) {
  std::vector<C> rows(m * k);
  for (size_t i = 0; i < m; ++i)
    for (size_t p = 0; p < k; ++p) rows[i * k + p] = a.at(i, p);
  size_t grain = std::max<size_t>(16, (size_t(1) << 16) / std::max<size_t>(k * m, 1));
  parallel_for(n, grain, [&](size_t jb, size_t je) {
    for (size_t i = 0; i < m; ++i) {
      C* out = c + i * ldc;
      if (b.row_stride == 1) {
        for (size_t j = jb; j < je; ++j) {
          C s = dot(rows.data() + i * k, b.data + static_cast<ptrdiff_t>(j) * b.col_stride, k);
          out[j] = accumulate ? out[j] + s : s;
        }
        continue;
      }
      size_t j0 = b.col_stride == 1
                      ? vector_times_rows(rows.data() + i * k, b.data, b.row_stride, k, jb, je, out, accumulate)
                      : jb;
      if (j0 == je) continue;
      if (!accumulate) std::fill(out + j0, out + je, C(0));
      for (size_t p = 0; p < k; ++p) {
        C av = rows[i * k + p];
        const C* brow = b.data + static_cast<ptrdiff_t>(p) * b.row_stride;
        for (size_t j = j0; j < je; ++j) out[j] += av * brow[static_cast<ptrdiff_t>(j) * b.col_stride];
      }
    }
  });
}

/// Most values of a B operand that run_parallel packs once for all threads (else each packs it).
inline constexpr size_t kSharedPackedB = size_t(1) << 21;  // 8 MiB of f32, 16 of f64, kept per caller thread

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
/// With share_b, a split by rows packs B once, in parallel, for all threads: worth it when packing B costs more than
/// reading it (im2col); a plain B is better packed block by block by each thread, the block staying in its L2.
template <class C, class PackA, class PackB> void run_parallel(size_t m, size_t n, size_t k, const PackA& pack_a,
                                                               const PackB& pack_b, C* c, size_t ldc, bool accumulate,
                                                               bool share_b = false) {
  using Blk = gemm::Blocking<C>;
  if (num_threads() <= 1 || static_cast<double>(m) * n * k < kParallelWork) {
    gemm::run<C>(m, n, k, pack_a, pack_b, c, ldc, accumulate);
    return;
  }
  size_t row_tiles = (m + Blk::kMR - 1) / Blk::kMR, col_tiles = (n + Blk::kNR - 1) / Blk::kNR;
  gemm::Blocks<C> blocks(n, k);
  if (share_b && row_tiles > col_tiles && blocks.packed_size() <= kSharedPackedB) {
    thread_local std::vector<C> packed;
    packed.resize(blocks.packed_size() + 16);
    C* dst = reinterpret_cast<C*>((reinterpret_cast<uintptr_t>(packed.data()) + 63) & ~uintptr_t(63));
    gemm::pack_whole_b<C>(n, k, pack_b, dst, [](size_t count, const auto& body) {
      parallel_for(count, 1, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) body(i);
      });
    });
    parallel_for(row_tiles, 1, [&](size_t tb, size_t te) {
      size_t r0 = tb * Blk::kMR, r1 = std::min(m, te * Blk::kMR);
      gemm::run<C>(r1 - r0, n, k, RowSlice<PackA>{pack_a, r0}, gemm::PackedB<C>{dst}, c + r0 * ldc, ldc, accumulate);
    });
    return;
  }
  if (row_tiles >= col_tiles) {
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

/// C[m, n] (+)= A·B for strided A and B: few-row products stream B once, others go through run_parallel.
template <class C> void gemm_parallel(size_t m, size_t n, size_t k, gemm::Strided<C> a, gemm::Strided<C> b, C* c,
                                      size_t ldc, bool accumulate = false) {
  if (m <= kFewRows && k > 0) return few_rows(m, n, k, a, b, c, ldc, accumulate);
  run_parallel<C>(m, n, k, gemm::PackStridedA<C>{a}, gemm::PackStridedB<C>{b}, c, ldc, accumulate);
}

}  // namespace scorch::backends::cpu::blas
