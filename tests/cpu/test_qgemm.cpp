// The integer GEMM tile of quantized_linear (backends/cpu/kernels/qgemm.h) against plain loops, for the ISA the
// file is compiled for: native (AVX-512 VNNI where the machine has it), AVX2 and portable builds of this file.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "scorch/backends/cpu/kernels/qgemm.h"

namespace scorch::backends::cpu::qgemm {
namespace {

TEST(QGemmTile, MatchesPlainLoops) {
#if defined(__AVX2__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this CPU has no AVX2";
#endif
#if defined(__AVX512VNNI__)
  if (!__builtin_cpu_supports("avx512vnni")) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
#endif
  std::mt19937 rng(5);
  for (size_t k : {Isa::kGroup, size_t{64}, size_t{260}}) {
    size_t groups = k / Isa::kGroup;
    std::vector<std::vector<int8_t>> w(Isa::kRows, std::vector<int8_t>(k));
    std::vector<std::vector<int32_t>> x(kBlockRows, std::vector<int32_t>(k));
    std::vector<Isa::XElem> packed(kBlockRows * k);
    for (auto& row : w)
      for (auto& v : row) v = static_cast<int8_t>(int(rng() % 256) - 128);
    for (size_t r = 0; r < kBlockRows; ++r)
      for (size_t p = 0; p < k; ++p) {
        x[r][p] = static_cast<int32_t>(rng() % 256);  // uint8 inputs, 255 included: no saturation allowed
        if (p < 4) x[r][p] = 255, w[r % Isa::kRows][p] = -128;
        packed[packed_index(r, p)] = static_cast<Isa::XElem>(x[r][p]);
      }
    std::vector<const int8_t*> rows;
    for (auto& row : w) rows.push_back(row.data());
    std::vector<int32_t> out(Isa::kRows * kBlockRows);
    tile(groups, rows.data(), packed.data(), out.data());
    for (size_t i = 0; i < Isa::kRows; ++i)
      for (size_t r = 0; r < kBlockRows; ++r) {
        int32_t expected = 0;
        for (size_t p = 0; p < k; ++p) expected += int32_t(w[i][p]) * x[r][p];
        ASSERT_EQ(out[i * kBlockRows + r], expected) << "k " << k << " row " << i << " input " << r;
      }
  }
}

}  // namespace
}  // namespace scorch::backends::cpu::qgemm
