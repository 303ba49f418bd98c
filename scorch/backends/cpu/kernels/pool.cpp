// Pooling (average, max with indices, adaptive average/max) over 1 to 3 spatial dims and
// their gradients, one channel plane per task, with PyTorch's window and divisor rules.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

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

// Calls f(plane, output index, z, y, x spans) for every output of every plane, in parallel over planes; each
// dim's spans are computed once, not per output.
template <class SpanOf, class F> void each_window(const Plan& p, SpanOf span_of, F f) {
  std::vector<Span> spans[3];
  for (size_t d = 0; d < 3; ++d)
    for (size_t o = 0; o < p.g.out[d]; ++o) spans[d].push_back(span_of(d, o));
  parallel_for(p.planes, 1, [&](size_t pb, size_t pe) {
    for (size_t plane = pb; plane < pe; ++plane) {
      size_t o = 0;
      for (const Span& z : spans[0])
        for (const Span& y : spans[1])
          for (const Span& x : spans[2]) f(plane, o++, z, y, x);
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

// The values (x's dtype) and int64 input indices a max pooling returns, allocated for p's output shape.
// xs is the input (x's planes of `in` values), o_values and o_idx the outputs' (planes of out_size).
template <class C> struct MaxResult {
  T values, indices;
  const C* xs;
  C* o_values;
  int64_t* o_idx;
  size_t in, out_size;
  MaxResult(const T& x, const Plan& p)
      : values(p.out_shape, x.dtype()),
        indices(p.out_shape, DType::I64),
        xs(x.data<C>()),
        o_values(values.data<C>()),
        o_idx(indices.data<int64_t>()),
        in(p.g.in_size()),
        out_size(p.g.out_size()) {}
};

// Max over adaptive windows (their spans vary per output), one window at a time; a NaN wins, as PyTorch's
// `v > best || isnan(v)`.
template <class C> std::pair<T, T> adaptive_max_as(const T& x, const Plan& p) {
  const auto& g = p.g;
  MaxResult<C> r(x, p);
  auto span = [&](size_t d, size_t o) { return adaptive_span(o, g.out[d], g.in[d]); };
  each_window(p, span, [&](size_t plane, size_t o, Span z, Span y, Span w) {
    C best = -std::numeric_limits<C>::infinity();
    int64_t best_i = (z.begin * static_cast<int64_t>(g.in[1]) + y.begin) * static_cast<int64_t>(g.in[2]) + w.begin;
    each_cell<C>(z, y, w, g.in[1], g.in[2], [&](size_t i) {
      C v = r.xs[plane * r.in + i];
      if (v > best || v != v) {
        best = v;
        best_i = static_cast<int64_t>(i);
      }
    });
    r.o_values[plane * r.out_size + o] = best;
    r.o_idx[plane * r.out_size + o] = best_i;
  });
  return {std::move(r.values), std::move(r.indices)};
}

// The valid cells of one window dim: first input index, end, and step (the dilation).
Span max_span(const window::Geometry& g, size_t d, size_t o) {
  int64_t b = static_cast<int64_t>(o * g.stride[d]) - static_cast<int64_t>(g.padding[d]);
  int64_t e =
      std::min<int64_t>(b + static_cast<int64_t>((g.kernel[d] - 1) * g.dilation[d] + 1), static_cast<int64_t>(g.in[d]));
  while (b < 0) b += static_cast<int64_t>(g.dilation[d]);
  return {b, e, 0};
}

// Max pooling of one output row (fixed oz, oy) into values/indices: cells are visited in the per-window order
// (z, y, then x), but the innermost loop runs across the row's outputs with selects, so independent windows
// overlap instead of one data-dependent branch per cell.
template <class C> void max_pool_row(const C* xp, const window::Geometry& g, Span z, Span y,
                                     const std::vector<Span>& xspans, C* values, int64_t* indices) {
  const size_t ow = g.out[2];
  const auto in1 = static_cast<int64_t>(g.in[1]), in2 = static_cast<int64_t>(g.in[2]);
  for (size_t ox = 0; ox < ow; ++ox) {
    values[ox] = -std::numeric_limits<C>::infinity();
    indices[ox] = (z.begin * in1 + y.begin) * in2 + xspans[ox].begin;
  }
  const auto stride = static_cast<int64_t>(g.stride[2]), ow_i = static_cast<int64_t>(ow);
  for (int64_t iz = z.begin; iz < z.end; iz += static_cast<int64_t>(g.dilation[0]))
    for (int64_t iy = y.begin; iy < y.end; iy += static_cast<int64_t>(g.dilation[1])) {
      const int64_t base = (iz * in1 + iy) * in2;
      const C* row = xp + base;
      for (size_t kx = 0; kx < g.kernel[2]; ++kx) {  // ix = ox·stride + off, kept inside [0, in2)
        int64_t off = static_cast<int64_t>(kx * g.dilation[2]) - static_cast<int64_t>(g.padding[2]);
        auto [lo, hi] = window::valid_range(off, stride, in2, ow_i);
        for (int64_t ox = lo; ox < hi; ++ox) {
          int64_t ix = ox * stride + off;
          C v = row[ix];
          bool take = v > values[ox] || v != v;
          values[ox] = take ? v : values[ox];
          indices[ox] = take ? base + ix : indices[ox];
        }
      }
    }
}

template <class C> std::pair<T, T> max_pool_as(const T& x, const Plan& p) {
  const auto& g = p.g;
  MaxResult<C> r(x, p);
  std::vector<Span> spans[3];
  for (size_t d = 0; d < 3; ++d)
    for (size_t o = 0; o < g.out[d]; ++o) spans[d].push_back(max_span(g, d, o));
  parallel_for(p.planes, 1, [&](size_t pb, size_t pe) {
    for (size_t plane = pb; plane < pe; ++plane)
      for (size_t oz = 0; oz < g.out[0]; ++oz)
        for (size_t oy = 0; oy < g.out[1]; ++oy) {
          size_t o = plane * r.out_size + (oz * g.out[1] + oy) * g.out[2];
          max_pool_row(r.xs + plane * r.in, g, spans[0][oz], spans[1][oy], spans[2], r.o_values + o, r.o_idx + o);
        }
  });
  return {std::move(r.values), std::move(r.indices)};
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
  auto [v, i] =
      window::in_compute_type(d, [&](auto c) { return max_pool_as<decltype(c)>(xc, pool_plan(xc.shape(), spec)); });
  return {to_dtype(v, d), std::move(i)};
}

std::pair<T, T> adaptive_max_pool_with_indices(T x, const SpatialDims& output_size) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  T xc = to_dtype(x, cd);
  auto [v, i] = window::in_compute_type(
      d, [&](auto c) { return adaptive_max_as<decltype(c)>(xc, adaptive_plan(xc.shape(), output_size)); });
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
