// Interpolation of [batch, channels, h, w] images (nearest, bilinear, bicubic) and its
// gradient. Each axis gets a table of (source index, weight) taps per output index, computed
// with PyTorch's coordinate rules, so forward and backward share one separable loop.
#include <cmath>
#include <vector>

#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"
#include "scorch/backends/cpu/thread_pool.h"

namespace scorch::backends::cpu::kernels {
namespace {

// The taps of one output index along one axis.
struct Taps {
  size_t count = 0;
  size_t index[4] = {};
  double weight[4] = {};
};

double cubic_near(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic_far(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

// Coordinates are computed in R, the compute type (float for f32/f16/bf16, double for f64), as PyTorch does.
template <class R> std::vector<Taps> axis_taps(size_t in, size_t out, InterpolateMode mode, bool align_corners) {
  std::vector<Taps> taps(out);
  auto last = static_cast<int64_t>(in) - 1;
  if (mode == InterpolateMode::Nearest) {
    float scale = static_cast<float>(in) / static_cast<float>(out);
    for (size_t o = 0; o < out; ++o) {
      auto i = std::min<int64_t>(static_cast<int64_t>(std::floor(static_cast<float>(o) * scale)), last);
      taps[o] = Taps{1, {static_cast<size_t>(i)}, {1.0}};
    }
    return taps;
  }
  bool cubic = mode == InterpolateMode::Bicubic;
  R scale = align_corners ? (out > 1 ? static_cast<R>(in - 1) / static_cast<R>(out - 1) : R(0))
                          : static_cast<R>(in) / static_cast<R>(out);
  for (size_t o = 0; o < out; ++o) {
    R src = align_corners ? scale * static_cast<R>(o) : scale * (static_cast<R>(o) + R(0.5)) - R(0.5);
    if (!align_corners && !cubic && src < 0) src = 0;
    Taps& t = taps[o];
    if (!cubic) {
      auto i0 = static_cast<int64_t>(src);
      double l1 = src - static_cast<R>(i0);
      int64_t step = i0 < last ? 1 : 0;
      t = Taps{2, {static_cast<size_t>(i0), static_cast<size_t>(i0 + step)}, {1.0 - l1, l1}};
    } else {
      auto i0 = static_cast<int64_t>(std::floor(src));
      double f = src - static_cast<R>(i0), a = -0.75;
      double w[4] = {cubic_far(f + 1, a), cubic_near(f, a), cubic_near(1 - f, a), cubic_far(2 - f, a)};
      t.count = 4;
      for (int k = 0; k < 4; ++k) {
        t.index[k] = static_cast<size_t>(std::clamp<int64_t>(i0 - 1 + k, 0, last));
        t.weight[k] = w[k];
      }
    }
  }
  return taps;
}

// forward: out[oy, ox] = Σ wy·wx·x[iy, ix]; backward: dx[iy, ix] += wy·wx·grad[oy, ox].
template <class C> void resample(const C* src, C* dst, size_t planes, size_t h, size_t w, size_t oh, size_t ow,
                                 const std::vector<Taps>& ty, const std::vector<Taps>& tx, bool backward) {
  parallel_for(planes, 1, [&](size_t pb, size_t pe) {
    for (size_t p = pb; p < pe; ++p) {
      const C* s = src + p * (backward ? oh * ow : h * w);
      C* d = dst + p * (backward ? h * w : oh * ow);
      if (backward) std::fill(d, d + h * w, C(0));
      for (size_t oy = 0; oy < oh; ++oy)
        for (size_t ox = 0; ox < ow; ++ox) {
          const Taps &a = ty[oy], &b = tx[ox];
          if (backward) {
            C g = s[oy * ow + ox];
            for (size_t i = 0; i < a.count; ++i)
              for (size_t j = 0; j < b.count; ++j)
                d[a.index[i] * w + b.index[j]] += static_cast<C>(a.weight[i] * b.weight[j]) * g;
          } else {
            C acc = 0;
            for (size_t i = 0; i < a.count; ++i) {
              C row = 0;
              for (size_t j = 0; j < b.count; ++j) row += static_cast<C>(b.weight[j]) * s[a.index[i] * w + b.index[j]];
              acc += static_cast<C>(a.weight[i]) * row;
            }
            d[oy * ow + ox] = acc;
          }
        }
    }
  });
}

T run(const T& x, const T* grad, const InterpolateSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  const Shape& s = x.shape();
  size_t planes = s[0] * s[1], h = s[2], w = s[3], oh = spec.output_size[0], ow = spec.output_size[1];
  T src = to_dtype(grad ? *grad : x, cd);
  T out(grad ? s : Shape{s[0], s[1], oh, ow}, cd);
  if (cd == DType::F64) {
    auto ty = axis_taps<double>(h, oh, spec.mode, spec.align_corners),
         tx = axis_taps<double>(w, ow, spec.mode, spec.align_corners);
    resample(src.data<double>(), out.data<double>(), planes, h, w, oh, ow, ty, tx, grad != nullptr);
  } else {
    auto ty = axis_taps<float>(h, oh, spec.mode, spec.align_corners),
         tx = axis_taps<float>(w, ow, spec.mode, spec.align_corners);
    resample(src.data<float>(), out.data<float>(), planes, h, w, oh, ow, ty, tx, grad != nullptr);
  }
  return to_dtype(out, d);
}

}  // namespace

T interpolate(T x, const InterpolateSpec& spec) { return run(x, nullptr, spec); }

T interpolate_backward(T x, T grad, const InterpolateSpec& spec) { return run(x, &grad, spec); }

}  // namespace scorch::backends::cpu::kernels
