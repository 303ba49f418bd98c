#pragma once
// The Cpu backend's integer GEMM for quantized_linear: Cᵀ[n, m] = Σk W[n, k]·X[m, k] with the weight's rows read in
// place (k contiguous, as PyTorch's [out, in] layout stores them) and broadcast, and the quantized input packed so one
// vector holds kGroup consecutive k of kLanes rows. AVX-512 VNNI multiplies uint8 by int8 four k at a time
// (vpdpbusd); AVX2 multiplies int16 pairs (vpmaddwd, which cannot saturate); other targets multiply int32 lanes.
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace scorch::backends::cpu::qgemm {

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
/// AVX-512 VNNI: four uint8·int8 products summed into each of 16 int32 lanes.
struct Isa {
  using XElem = uint8_t;
  using Vec = __m512i;
  static constexpr size_t kGroup = 4, kLanes = 16, kRows = 6, kVecs = 4;  // 24 sums, 4 loads, 6 broadcasts
  static Vec zero() { return _mm512_setzero_si512(); }
  static Vec load(const XElem* p) { return _mm512_loadu_si512(p); }
  static Vec broadcast(const int8_t* w) {  // straight from memory: a register broadcast would take a vector port
    Vec v;
    asm("vpbroadcastd %1, %0" : "=v"(v) : "m"(*reinterpret_cast<const int32_t*>(w)));
    return v;
  }
  static Vec madd(Vec acc, Vec x, Vec w) { return _mm512_dpbusd_epi32(acc, x, w); }
  static void store(int32_t* dst, Vec v) { _mm512_storeu_si512(dst, v); }
};
#elif defined(__AVX2__)
/// AVX2: two int16 products summed into each of 8 int32 lanes.
struct Isa {
  using XElem = int16_t;
  using Vec = __m256i;
  static constexpr size_t kGroup = 2, kLanes = 8, kRows = 6, kVecs = 2;
  static Vec zero() { return _mm256_setzero_si256(); }
  static Vec load(const XElem* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static Vec broadcast(const int8_t* w) {
    uint32_t v = uint32_t(uint16_t(int16_t(w[0]))) | (uint32_t(uint16_t(int16_t(w[1]))) << 16);
    return _mm256_set1_epi32(static_cast<int32_t>(v));
  }
  static Vec madd(Vec acc, Vec x, Vec w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(x, w)); }
  static void store(int32_t* dst, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), v); }
};
#else
/// Portable: one int32 product per lane (GCC vector extensions: SSE, NEON, WebAssembly SIMD).
struct Isa {
  using XElem = int32_t;
  typedef int32_t Vec __attribute__((vector_size(16)));
  static constexpr size_t kGroup = 1, kLanes = 4, kRows = 4, kVecs = 3;
  static Vec zero() { return Vec{}; }
  static Vec load(const XElem* p) {
    Vec v;
    std::memcpy(&v, p, sizeof(Vec));
    return v;
  }
  static Vec broadcast(const int8_t* w) { return Vec{} + int32_t(w[0]); }
  static Vec madd(Vec acc, Vec x, Vec w) { return acc + x * w; }
  static void store(int32_t* dst, Vec v) { std::memcpy(dst, &v, sizeof(Vec)); }
};
#endif

/// Input rows per packed block (one micro-tile's width).
inline constexpr size_t kBlockRows = Isa::kLanes * Isa::kVecs;

/// The packed input block's element for row r (< kBlockRows) and depth k: blocks are [group][vec][lane][kGroup].
inline size_t packed_index(size_t r, size_t k) {
  size_t g = k / Isa::kGroup, t = k % Isa::kGroup, v = r / Isa::kLanes, lane = r % Isa::kLanes;
  return ((g * Isa::kVecs + v) * Isa::kLanes + lane) * Isa::kGroup + t;
}

/// out[i][r] = Σ over groups of w_rows[i][k]·x[r][k] for kRows weight rows and one packed block of kBlockRows rows.
/// Never inlined: the caller's code would take registers the accumulators need.
[[gnu::noinline]] inline void tile(size_t groups, const int8_t* const* w_rows, const Isa::XElem* x, int32_t* out) {
  using V = Isa::Vec;
  constexpr size_t R = Isa::kRows, NV = Isa::kVecs, step = Isa::kLanes * Isa::kGroup;
  V acc[R][NV];
#pragma GCC unroll 8
  for (size_t i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) acc[i][v] = Isa::zero();
  for (size_t g = 0; g < groups; ++g) {
    V xv[NV];
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) xv[v] = Isa::load(x + (g * NV + v) * step);
#pragma GCC unroll 8
    for (size_t i = 0; i < R; ++i) {
      V wv = Isa::broadcast(w_rows[i] + g * Isa::kGroup);
#pragma GCC unroll 4
      for (size_t v = 0; v < NV; ++v) acc[i][v] = Isa::madd(acc[i][v], xv[v], wv);
    }
  }
#pragma GCC unroll 8
  for (size_t i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) Isa::store(out + i * kBlockRows + v * Isa::kLanes, acc[i][v]);
}

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
/// Rows of the input that dot_rows takes at once (small batches: no block of kBlockRows rows to fill).
inline constexpr size_t kDotRows = 4;
/// out[r] = Σk x[r][k]·w[k] for rows ≤ kDotRows uint8 rows of x (stride kp) and one int8 weight row of k values,
/// 64 products an instruction along k (masked at the end: nothing past the row is read).
inline void dot_rows(size_t rows, size_t k, size_t kp, const uint8_t* x, const int8_t* w, int32_t* out) {
  __m512i acc[kDotRows] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                           _mm512_setzero_si512()};
  for (size_t p = 0; p < k; p += 64) {
    __mmask64 mask = k - p >= 64 ? ~__mmask64{0} : (__mmask64{1} << (k - p)) - 1;
    __m512i wv = _mm512_maskz_loadu_epi8(mask, w + p);
    for (size_t r = 0; r < rows; ++r)
      acc[r] = _mm512_dpbusd_epi32(acc[r], _mm512_maskz_loadu_epi8(mask, x + r * kp + p), wv);
  }
  for (size_t r = 0; r < rows; ++r) {
    alignas(64) int32_t lanes[16];
    _mm512_store_si512(lanes, acc[r]);
    int32_t sum = 0;
    for (int32_t lane : lanes) sum += lane;
    out[r] = sum;
  }
}
#endif

}  // namespace scorch::backends::cpu::qgemm
