// The packed GEMM against a naive f64 reference: odd sizes that cross every block boundary,
// strided and transposed operands, accumulation, and the threaded split. This file is also
// compiled without -march=native (scorch_gemm_portable_tests) so the portable SSE/NEON/wasm
// tile is checked too; it includes only the header, never the prebuilt library.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "scorch/backends/cpu/kernels/gemm.h"

namespace scorch::backends::cpu::gemm {
namespace {

template <class T> std::vector<T> random_values(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> d;
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(g));
  return v;
}

// C = A·B (+ C0) with A [m, k] and B [k, n] read through (row, col) strides; checks every entry.
template <class T>
void check(size_t m, size_t n, size_t k, bool transpose_a, bool transpose_b, bool accumulate, double tol) {
  auto a = random_values<T>(m * k, 1), b = random_values<T>(k * n, 2), c = random_values<T>(m * n, 3);
  auto c0 = c;
  Strided<T> sa = transpose_a ? Strided<T>{a.data(), 1, static_cast<ptrdiff_t>(m)}
                              : Strided<T>{a.data(), static_cast<ptrdiff_t>(k), 1};
  Strided<T> sb = transpose_b ? Strided<T>{b.data(), 1, static_cast<ptrdiff_t>(k)}
                              : Strided<T>{b.data(), static_cast<ptrdiff_t>(n), 1};
  strided<T>(m, n, k, sa, sb, c.data(), n, accumulate);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j) {
      double ref = accumulate ? static_cast<double>(c0[i * n + j]) : 0.0;
      for (size_t p = 0; p < k; ++p) ref += static_cast<double>(sa.at(i, p)) * static_cast<double>(sb.at(p, j));
      ASSERT_NEAR(c[i * n + j], ref, tol * (1 + std::abs(ref)))
          << "m=" << m << " n=" << n << " k=" << k << " at " << i << "," << j;
    }
}

TEST(Gemm, F32SizesAcrossBlocks) {
  using Blk = Blocking<float>;
  for (size_t m : {size_t(1), Blk::kMR - 1, Blk::kMC + 3})
    for (size_t n : {size_t(1), Blk::kNR + 5, Blk::kNC + 7})
      for (size_t k : {size_t(1), size_t(17), Blk::kKC + 9}) check<float>(m, n, k, false, false, false, 1e-4);
}

TEST(Gemm, F32TransposedAndAccumulated) {
  check<float>(37, 53, 71, true, false, false, 1e-4);
  check<float>(37, 53, 71, false, true, true, 1e-4);
  check<float>(64, 100, 300, true, true, true, 1e-4);
}

TEST(Gemm, F64) {
  check<double>(29, 61, 300, false, false, false, 1e-12);
  check<double>(29, 61, 33, true, true, true, 1e-12);
}

TEST(Gemm, EmptyDepthZeroesOrKeeps) {
  std::vector<float> c(6, 5.f);
  strided<float>(2, 3, 0, {nullptr, 0, 1}, {nullptr, 0, 1}, c.data(), 3, true);
  EXPECT_EQ(c[0], 5.f);
  strided<float>(2, 3, 0, {nullptr, 0, 1}, {nullptr, 0, 1}, c.data(), 3, false);
  EXPECT_EQ(c[5], 0.f);
}

}  // namespace
}  // namespace scorch::backends::cpu::gemm
