// Pooling (average, max with indices, adaptive average/max) over 1 to 3 spatial dims and
// their gradients, one channel plane per task, with PyTorch's window and divisor rules.
#include <cmath>
#include <limits>
#include <string>

#include "scorch/backend/module_shapes.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"
#include "scorch/backends/cpu/thread_pool.h"
#include "scorch/core/error.h"

namespace scorch::backends::cpu::kernels {
namespace {

using window::Dims3;

// One pooling window along one dim: [begin, end) clipped to the input, and the unclipped
// length used by count_include_pad.
struct Span {
  int64_t begin, end, padded;
};

Span avg_span(size_t o, size_t kernel, size_t stride, size_t padding, size_t in) {
  int64_t b = static_cast<int64_t>(o * stride) - static_cast<int64_t>(padding);
  int64_t e = std::min<int64_t>(b + static_cast<int64_t>(kernel), static_cast<int64_t>(in + padding));
  int64_t padded = e - b;
  return {std::max<int64_t>(b, 0), std::min<int64_t>(e, static_cast<int64_t>(in)), padded};
}

Span adaptive_span(size_t o, size_t out, size_t in) {
  auto b = static_cast<int64_t>(module_shapes::adaptive_start(o, out, in)),
       e = static_cast<int64_t>(module_shapes::adaptive_end(o, out, in));
  return {b, e, e - b};
}

struct Plan {
  size_t planes;
  window::Geometry g;
  Shape out_shape;
};

Plan pool_plan(const Shape& x, const PoolSpec& spec) {
  size_t s = x.rank() - 2;
  SpatialDims out(s);
  for (size_t d = 0; d < s; ++d)
    out[d] = static_cast<size_t>(module_shapes::pool_out(x[d + 2], spec.kernel[d], spec.stride[d], spec.padding[d],
                                                         spec.dilation[d], spec.ceil_mode));
  Shape o = x;
  for (size_t d = 0; d < s; ++d) o[d + 2] = out[d];
  return {x[0] * x[1],
          window::make(window::spatial(x, s), window::pad3(spec.kernel, 1), spec.stride, spec.padding, spec.dilation,
                       window::pad3(out, 1)),
          o};
}

Plan adaptive_plan(const Shape& x, const SpatialDims& out) {
  size_t s = x.rank() - 2;
  Shape o = x;
  for (size_t d = 0; d < s; ++d) o[d + 2] = out[d];
  window::Geometry g;
  g.in = window::spatial(x, s);
  g.out = window::pad3(out, 1);
  return {x[0] * x[1], g, o};
}

// Calls f(plane, z, y, x-output index, spans[3]) for every output of every plane, in parallel over planes.
template <class SpanOf, class F> void each_window(const Plan& p, SpanOf span_of, F f) {
  parallel_for(p.planes, 1, [&](size_t pb, size_t pe) {
    for (size_t plane = pb; plane < pe; ++plane) {
      size_t o = 0;
      for (size_t oz = 0; oz < p.g.out[0]; ++oz)
        for (size_t oy = 0; oy < p.g.out[1]; ++oy)
          for (size_t ox = 0; ox < p.g.out[2]; ++ox, ++o) f(plane, o, span_of(0, oz), span_of(1, oy), span_of(2, ox));
    }
  });
}

template <class C, class F> void each_cell(const Span& z, const Span& y, const Span& x, size_t h, size_t w, F f) {
  for (int64_t iz = z.begin; iz < z.end; ++iz)
    for (int64_t iy = y.begin; iy < y.end; ++iy)
      for (int64_t ix = x.begin; ix < x.end; ++ix)
        f((static_cast<size_t>(iz) * h + static_cast<size_t>(iy)) * w + static_cast<size_t>(ix));
}

// Average pooling (or, with grad, its gradient) over the windows span(dim, output index)
// gives; the divisor counts the padded window when include_pad, else the cells inside.
template <class C, class SpanOf>
T average_windows(const T& x, const Plan& p, const T* grad, SpanOf span, bool include_pad) {
  const auto& g = p.g;
  size_t in = g.in_size(), out = g.out_size();
  T result = grad ? T(x.shape(), x.dtype()) : T(p.out_shape, x.dtype());
  const C* xs = x.data<C>();
  C* r = result.data<C>();
  if (grad) std::fill(r, r + p.planes * in, C(0));
  each_window(p, span, [&](size_t plane, size_t o, Span z, Span y, Span w) {
    int64_t count =
        include_pad ? z.padded * y.padded * w.padded : (z.end - z.begin) * (y.end - y.begin) * (w.end - w.begin);
    C div = static_cast<C>(count);
    if (grad) {
      C share = grad->data<C>()[plane * out + o] / div;
      each_cell<C>(z, y, w, g.in[1], g.in[2], [&](size_t i) { r[plane * in + i] += share; });
    } else {
      C sum = 0;
      each_cell<C>(z, y, w, g.in[1], g.in[2], [&](size_t i) { sum += xs[plane * in + i]; });
      r[plane * out + o] = sum / div;
    }
  });
  return result;
}

template <class C> T avg_pool_as(const T& x, const PoolSpec& spec, const T* grad) {
  Plan p = pool_plan(x.shape(), spec);
  auto span = [&](size_t d, size_t o) { return avg_span(o, p.g.kernel[d], p.g.stride[d], p.g.padding[d], p.g.in[d]); };
  return average_windows<C>(x, p, grad, span, spec.count_include_pad);
}

template <class C> std::pair<T, T> max_pool_as(const T& x, const Plan& p, bool adaptive) {
  const auto& g = p.g;
  size_t in = g.in_size();
  T out(p.out_shape, x.dtype()), idx(p.out_shape, DType::I64);
  const C* xs = x.data<C>();
  C* o_values = out.data<C>();
  int64_t* o_idx = idx.data<int64_t>();
  auto span = [&](size_t d, size_t o) {
    if (adaptive) return adaptive_span(o, g.out[d], g.in[d]);
    int64_t b = static_cast<int64_t>(o * g.stride[d]) - static_cast<int64_t>(g.padding[d]);
    int64_t e = std::min<int64_t>(b + static_cast<int64_t>((g.kernel[d] - 1) * g.dilation[d] + 1),
                                  static_cast<int64_t>(g.in[d]));
    while (b < 0) b += static_cast<int64_t>(g.dilation[d]);
    return Span{b, e, 0};
  };
  size_t out_size = g.out_size();
  each_window(p, span, [&](size_t plane, size_t o, Span z, Span y, Span w) {
    C best = -std::numeric_limits<C>::infinity();
    int64_t best_i = (z.begin * static_cast<int64_t>(g.in[1]) + y.begin) * static_cast<int64_t>(g.in[2]) + w.begin;
    size_t dz = adaptive ? 1 : g.dilation[0], dy = adaptive ? 1 : g.dilation[1], dx = adaptive ? 1 : g.dilation[2];
    for (int64_t iz = z.begin; iz < z.end; iz += static_cast<int64_t>(dz))
      for (int64_t iy = y.begin; iy < y.end; iy += static_cast<int64_t>(dy))
        for (int64_t ix = w.begin; ix < w.end; ix += static_cast<int64_t>(dx)) {
          int64_t i = (iz * static_cast<int64_t>(g.in[1]) + iy) * static_cast<int64_t>(g.in[2]) + ix;
          C v = xs[plane * in + static_cast<size_t>(i)];
          if (v > best || std::isnan(v)) {
            best = v;
            best_i = i;
          }
        }
    o_values[plane * out_size + o] = best;
    o_idx[plane * out_size + o] = best_i;
  });
  return {std::move(out), std::move(idx)};
}

template <class C> T adaptive_avg_as(const T& x, const Plan& p, const T* grad) {
  auto span = [&](size_t d, size_t o) { return adaptive_span(o, p.g.out[d], p.g.in[d]); };
  return average_windows<C>(x, p, grad, span, true);
}

}  // namespace

T avg_pool(T x, const PoolSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd);
  return to_dtype(window::in_compute_type(d, [&](auto c) { return avg_pool_as<decltype(c)>(xc, spec, nullptr); }), d);
}

T avg_pool_backward(T x, T grad, const PoolSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd), gc = to_dtype(grad, cd);
  return to_dtype(window::in_compute_type(d, [&](auto c) { return avg_pool_as<decltype(c)>(xc, spec, &gc); }), d);
}

std::pair<T, T> max_pool_with_indices(T x, const PoolSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd);
  auto [v, i] = window::in_compute_type(
      d, [&](auto c) { return max_pool_as<decltype(c)>(xc, pool_plan(xc.shape(), spec), false); });
  return {to_dtype(v, d), std::move(i)};
}

std::pair<T, T> adaptive_max_pool_with_indices(T x, const SpatialDims& output_size) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd);
  auto [v, i] = window::in_compute_type(
      d, [&](auto c) { return max_pool_as<decltype(c)>(xc, adaptive_plan(xc.shape(), output_size), true); });
  return {to_dtype(v, d), std::move(i)};
}

T max_pool_backward(T x, T grad, T indices) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T gc = to_dtype(grad, cd), ic = to_dtype(indices, DType::I64);
  size_t planes = x.shape()[0] * x.shape()[1], in = x.numel() / std::max<size_t>(planes, 1),
         out = gc.numel() / std::max<size_t>(planes, 1);
  T result(x.shape(), cd);
  window::in_compute_type(d, [&](auto c) {
    using C = decltype(c);
    C* r = result.data<C>();
    const C* gs = gc.data<C>();
    const int64_t* is = ic.data<int64_t>();
    parallel_for(planes, 1, [&](size_t pb, size_t pe) {
      for (size_t p = pb; p < pe; ++p) {
        std::fill(r + p * in, r + (p + 1) * in, C(0));
        for (size_t o = 0; o < out; ++o) {
          int64_t i = is[p * out + o];
          if (i < 0 || static_cast<size_t>(i) >= in)
            throw ShapeError("max_pool_backward", "index " + std::to_string(i) + " is outside the " +
                                                      std::to_string(in) + " values of a channel");
          r[p * in + static_cast<size_t>(i)] += gs[p * out + o];
        }
      }
    });
    return 0;
  });
  return to_dtype(result, d);
}

T adaptive_avg_pool(T x, const SpatialDims& output_size) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd);
  return to_dtype(
      window::in_compute_type(
          d, [&](auto c) { return adaptive_avg_as<decltype(c)>(xc, adaptive_plan(xc.shape(), output_size), nullptr); }),
      d);
}

T adaptive_avg_pool_backward(T x, T grad) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd), gc = to_dtype(grad, cd);
  size_t s = x.shape().rank() - 2;
  SpatialDims out(s);
  for (size_t i = 0; i < s; ++i) out[i] = grad.shape()[i + 2];
  return to_dtype(window::in_compute_type(
                      d, [&](auto c) { return adaptive_avg_as<decltype(c)>(xc, adaptive_plan(xc.shape(), out), &gc); }),
                  d);
}

}  // namespace scorch::backends::cpu::kernels
