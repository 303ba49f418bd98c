#include <cmath>
#include <vector>

#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/kernels/reduce.h"
#include "scorch/backends/common/fast_math.h"

namespace scorch::backends::cpu::kernels {
namespace {

// A contiguous f32 lane: vectorized max, exp-and-sum, scale (or shift for log-softmax).
template <bool kLog> void softmax_row_f32(const float* in, float* out, size_t n) {
  float max = -INFINITY;
  int nan = 0;
#pragma omp simd reduction(max : max) reduction(| : nan)
  for (size_t k = 0; k < n; ++k) {
    max = in[k] > max ? in[k] : max;
    nan |= in[k] != in[k];
  }
  if (nan) max = NAN;
  float total = 0;
  if constexpr (kLog) {
#pragma omp simd reduction(+ : total)
    for (size_t k = 0; k < n; ++k) total += fast_math::exp(in[k] - max);
    float shift = max + std::log(total);
#pragma omp simd
    for (size_t k = 0; k < n; ++k) out[k] = in[k] - shift;
  } else {
#pragma omp simd reduction(+ : total)
    for (size_t k = 0; k < n; ++k) {
      out[k] = fast_math::exp(in[k] - max);
      total += out[k];
    }
    float inv = 1.f / total;
#pragma omp simd
    for (size_t k = 0; k < n; ++k) out[k] *= inv;
  }
}

// One lane of n values at stride: writes softmax (or log-softmax) into out.
template <class E, bool kLog> void softmax_lane(const E* in, E* out, size_t n, size_t stride, std::vector<float>& buf) {
  using C = std::conditional_t<std::is_same_v<E, double>, double, float>;
  C max = -INFINITY;
  for (size_t k = 0; k < n; ++k) {
    C v = static_cast<C>(load(in + k * stride));
    max = (v > max || v != v) ? v : max;
  }
  double total = 0;
  for (size_t k = 0; k < n; ++k) {
    C e = std::exp(static_cast<C>(load(in + k * stride)) - max);
    if constexpr (!kLog)
      if (stride == 1 && !std::is_same_v<C, double>) buf[k] = static_cast<float>(e);
    total += e;
  }
  if constexpr (kLog) {
    C shift = max + static_cast<C>(std::log(total));
    for (size_t k = 0; k < n; ++k) store(out + k * stride, static_cast<C>(load(in + k * stride)) - shift);
  } else {
    C inv = static_cast<C>(1.0 / total);
    for (size_t k = 0; k < n; ++k) {
      C e = (stride == 1 && !std::is_same_v<C, double>) ? static_cast<C>(buf[k])
                                                        : std::exp(static_cast<C>(load(in + k * stride)) - max);
      store(out + k * stride, e * inv);
    }
  }
}

template <bool kLog> T softmax_impl(const char* name, T x, size_t dim) {
  x = contiguous(std::move(x));
  Lanes g(x.shape(), dim);
  T out(x.shape(), x.dtype());
  visit_float(name, x.dtype(), [&]<class E>() {
    const E* src = x.data<E>();
    E* dst = out.data<E>();
    size_t grain = std::max<size_t>(1, kElementwiseGrain / std::max<size_t>(g.n, 1) / 8);
    parallel_for(g.outer * g.inner, grain, [&](size_t b, size_t e) {
      std::vector<float> buf(g.n);
      for (size_t lane = b; lane < e; ++lane) {
        size_t offset = (lane / g.inner) * g.n * g.inner + lane % g.inner;
        if constexpr (std::is_same_v<E, float>) {
          if (g.inner == 1) {
            softmax_row_f32<kLog>(src + offset, dst + offset, g.n);
            continue;
          }
        }
        softmax_lane<E, kLog>(src + offset, dst + offset, g.n, g.inner, buf);
      }
    });
  });
  return out;
}

}  // namespace

T softmax(T x, size_t dim) { return softmax_impl<false>("softmax", std::move(x), dim); }
T log_softmax(T x, size_t dim) { return softmax_impl<true>("log_softmax", std::move(x), dim); }

}  // namespace scorch::backends::cpu::kernels
