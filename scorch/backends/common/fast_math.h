#pragma once
// The f32 exp and erf every elementwise functor uses. On the host: branch-free forms that compilers
// vectorize (std::exp/std::erf calls do not): selects instead of branches, integer bit tricks for
// 2^n. exp is within 2 ulp of std::exp over the whole float range (inf, 0, NaN and denormal results
// included); erf is within 5e-7 relative (tests/cpu/test_fast_math.cpp sweeps the float range). In
// CUDA device code: the CUDA math library's expf/erff. f64 keeps the C library everywhere.
#include "scorch/backends/common/portable_std.h"

namespace scorch::fast_math {

/// e^x for f32.
SCORCH_HD inline float exp(float x) {
#ifdef __CUDA_ARCH__
  return ::expf(x);
#else
  constexpr float kHi = 88.72283935546875f, kLo = -103.972084045410f;
  float xc = x > kLo ? (x < kHi ? x : kHi) : kLo;  // NaN takes kLo: n below stays an int (NaN is returned as is)
  float n = (xc * 1.44269504088896341f + 12582912.f) - 12582912.f;  // round to nearest
  float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * r * r + r + 1.f;
  auto ni = static_cast<int32_t>(n);
  int32_t half = ni >> 1;
  float s1 = stdx::bit_cast<float>((half + 127) << 23), s2 = stdx::bit_cast<float>((ni - half + 127) << 23);
  float out = y * s1 * s2;
  out = x > kHi ? stdx::numeric_limits<float>::infinity() : out;
  return x != x ? x : out;
#endif
}

/// erf(x) for f32: an odd/even rational minimax fit on [-4, 4] (beyond, erf is ±1 in f32).
SCORCH_HD inline float erf(float x) {
#ifdef __CUDA_ARCH__
  return ::erff(x);
#else
  float c = x < -4.f ? -4.f : (x > 4.f ? 4.f : x), z = c * c;
  float p = -2.72614225801306e-10f;
  p = p * z + 2.77068142495902e-08f;
  p = p * z - 2.10102402082508e-06f;
  p = p * z - 5.69250639462346e-05f;
  p = p * z - 7.34990630326855e-04f;
  p = p * z - 2.95459980854025e-03f;
  p = p * z - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * z - 2.13374055278905e-04f;
  q = q * z - 1.68282697438203e-03f;
  q = q * z - 7.37332916720468e-03f;
  q = q * z - 1.42647390514189e-02f;
  return x != x ? x : c * (p / q);
#endif
}

}  // namespace scorch::fast_math
