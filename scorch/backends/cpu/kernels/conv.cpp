// Convolution and transposed convolution (1-d to 3-d, stride, padding, dilation, groups) and
// their gradients, all through the packed GEMM: convolution packs its im2col operand straight
// from the image, transposed convolution multiplies then scatters with col2im.
#include <mutex>
#include <vector>

#include "scorch/backend/module_shapes.h"
#include "scorch/backends/cpu/kernels/blas.h"
#include "scorch/backends/cpu/kernels/depthwise.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/cpu/kernels/window.h"

namespace scorch::backends::cpu::kernels {
namespace {

using window::Geometry;

// B operand = im2col(x): rows are (channel, kernel offset), columns output pixels.
template <class C> struct PackIm2col {
  const C* x;
  const Geometry* g;
  void operator()(size_t r0, size_t kc, size_t c0, size_t nc, C* dst) const {
    thread_local std::vector<C> row;
    row.resize(nc);
    for (size_t p = 0; p < kc; ++p) {
      window::im2col_row(x, *g, r0 + p, c0, nc, row.data());
      gemm::scatter_row(row.data(), p, kc, nc, dst);
    }
  }
};

// B operand = im2col(x)ᵀ: rows are output pixels, columns (channel, kernel offset).
template <class C> struct PackIm2colT {
  const C* x;
  const Geometry* g;
  void operator()(size_t r0, size_t kc, size_t c0, size_t nc, C* dst) const {
    constexpr size_t NR = gemm::Blocking<C>::kNR;
    thread_local std::vector<C> row;
    row.resize(kc);
    for (size_t j0 = 0; j0 < nc; j0 += NR) {
      C* panel = dst + j0 * kc;
      for (size_t j = 0; j < NR; ++j) {
        if (j0 + j < nc) window::im2col_row(x, *g, c0 + j0 + j, r0, kc, row.data());
        for (size_t p = 0; p < kc; ++p) panel[p * NR + j] = j0 + j < nc ? row[p] : C(0);
      }
    }
  }
};

// Runs body(item) for items in parallel, or one by one with inner parallelism when there
// are fewer items than threads.
template <class F> void for_items(size_t items, F body) {
  if (items >= num_threads()) {
    parallel_for(items, 1, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) body(i, false);
    });
  } else {
    for (size_t i = 0; i < items; ++i) body(i, true);
  }
}

template <class C> void add_bias(C* out, const C* bias, size_t channels, size_t pixels) {
  if (!bias) return;
  for (size_t c = 0; c < channels; ++c)
    for (size_t i = 0; i < pixels; ++i) out[c * pixels + i] += bias[c];
}

// True when the convolution reads each input pixel once in place (1 × 1 kernel, unit stride, no padding, output as
// large as the input): its B operand is the image itself. (A transposed convolution's input gradient runs this with
// an output_padding-grown input: not pointwise.)
bool pointwise(const Geometry& g) {
  for (size_t d = 0; d < 3; ++d)
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.padding[d] != 0 || g.in[d] != g.out[d]) return false;
  return true;
}

// out [batch, cout, g.out] = conv(x [batch, cin, g.in], w [cout, cin/groups, kernel]) + bias.
template <class C> void conv_fwd(const C* x, const C* w, const C* bias, C* out, size_t batch, size_t cin, size_t cout,
                                 size_t groups, const Geometry& g) {
  if (groups > 1 && groups == cin) return depthwise_conv(x, w, bias, out, batch, cin, cout, g);
  size_t cin_g = cin / groups, cout_g = cout / groups, k = cin_g * g.kernel_size(), n = g.out_size();
  bool direct = pointwise(g);
  for_items(batch * groups, [&](size_t item, bool inner) {
    size_t b = item / groups, gr = item % groups;
    const C* xg = x + (b * cin + gr * cin_g) * g.in_size();
    C* og = out + (b * cout + gr * cout_g) * n;
    gemm::PackStridedA<C> pa{{w + gr * cout_g * k, static_cast<ptrdiff_t>(k), 1}};
    auto product = [&](const auto& pb) {
      if (inner) blas::run_parallel<C>(cout_g, n, k, pa, pb, og, n, false, !direct);
      else gemm::run<C>(cout_g, n, k, pa, pb, og, n, false);
    };
    if (direct) product(gemm::PackStridedB<C>{{xg, static_cast<ptrdiff_t>(n), 1}});
    else product(PackIm2col<C>{xg, &g});
    add_bias(og, bias ? bias + gr * cout_g : nullptr, cout_g, n);
  });
}

// out [batch, cout, g.in] = conv_transpose(x [batch, cin, g.out], w [cin, cout/groups, kernel]) + bias.
template <class C> void conv_transpose_fwd(const C* x, const C* w, const C* bias, C* out, size_t batch, size_t cin,
                                           size_t cout, size_t groups, const Geometry& g) {
  size_t cin_g = cin / groups, cout_g = cout / groups, rows = cout_g * g.kernel_size(), n = g.out_size();
  std::fill(out, out + batch * cout * g.in_size(), C(0));
  for_items(batch * groups, [&](size_t item, bool inner) {
    size_t b = item / groups, gr = item % groups;
    thread_local std::vector<C> cols;
    cols.resize(rows * n);
    gemm::Strided<C> a{w + gr * cin_g * rows, 1, static_cast<ptrdiff_t>(rows)};
    gemm::Strided<C> bm{x + (b * cin + gr * cin_g) * n, static_cast<ptrdiff_t>(n), 1};
    if (inner) blas::gemm_parallel<C>(rows, n, cin_g, a, bm, cols.data(), n);
    else gemm::strided<C>(rows, n, cin_g, a, bm, cols.data(), n, false);
    C* og = out + (b * cout + gr * cout_g) * g.in_size();
    window::col2im_add(cols.data(), cout_g, g, og);
    add_bias(og, bias ? bias + gr * cout_g : nullptr, cout_g, g.in_size());
  });
}

// dw [groups·ca_g, cb_g·kernel] = Σ_batch a_g [ca_g, g.out pixels] · im2col(src_g)ᵀ, where a is
// [batch, ca, g.out] and src [batch, cb, g.in].
template <class C> void weight_grad(const C* a, size_t ca, const C* src, size_t cb, size_t batch, size_t groups,
                                    const Geometry& g, C* dw) {
  size_t ca_g = ca / groups, cb_g = cb / groups, cols = cb_g * g.kernel_size(), n = g.out_size(), total = ca * cols;
  std::fill(dw, dw + total, C(0));
  std::mutex merge;
  parallel_for(batch, 1, [&](size_t bb, size_t be) {
    std::vector<C> part(total, C(0));
    for (size_t b = bb; b < be; ++b)
      for (size_t gr = 0; gr < groups; ++gr) {
        gemm::PackStridedA<C> pa{{a + (b * ca + gr * ca_g) * n, static_cast<ptrdiff_t>(n), 1}};
        PackIm2colT<C> pb{src + (b * cb + gr * cb_g) * g.in_size(), &g};
        gemm::run<C>(ca_g, cols, n, pa, pb, part.data() + gr * ca_g * cols, cols, true);
      }
    std::lock_guard lock(merge);
    for (size_t i = 0; i < total; ++i) dw[i] += part[i];
  });
}

// Per-channel sums of grad [batch, channels, pixels].
template <class C> void bias_grad(const C* grad, size_t batch, size_t channels, size_t pixels, C* db) {
  for (size_t c = 0; c < channels; ++c) {
    C s = 0;
    for (size_t b = 0; b < batch; ++b)
      for (size_t i = 0; i < pixels; ++i) s += grad[(b * channels + c) * pixels + i];
    db[c] = s;
  }
}

// Geometry of a convolution from x (input) to an output of spatial dims out.
Geometry conv_geometry(const Shape& x, const Shape& w, const ConvSpec& spec, const window::Dims3& out) {
  size_t s = x.rank() - 2;
  return window::make(window::spatial(x, s), window::spatial(w, s), spec.stride, spec.padding, spec.dilation, out);
}

window::Dims3 conv_out_dims(const Shape& x, const Shape& w, const ConvSpec& spec) {
  size_t s = x.rank() - 2;
  SpatialDims out(s);
  for (size_t d = 0; d < s; ++d)
    out[d] = static_cast<size_t>(
        module_shapes::conv_out(x[d + 2], w[d + 2], spec.stride[d], spec.padding[d], spec.dilation[d]));
  return window::pad3(out, 1);
}

window::Dims3 conv_transpose_out_dims(const Shape& x, const Shape& w, const ConvSpec& spec) {
  size_t s = x.rank() - 2;
  SpatialDims out(s);
  for (size_t d = 0; d < s; ++d)
    out[d] = static_cast<size_t>(module_shapes::conv_transpose_out(x[d + 2], w[d + 2], spec.stride[d], spec.padding[d],
                                                                   spec.dilation[d], spec.padding_out[d]));
  return window::pad3(out, 1);
}

Shape with_spatial(Shape s, size_t channels, const window::Dims3& dims) {
  size_t n = s.rank() - 2;
  s[1] = channels;
  for (size_t d = 0; d < n; ++d) s[d + 2] = dims[3 - n + d];
  return s;
}

template <class C> T conv_as(const T& x, const T& w, const std::optional<T>& bias, const ConvSpec& spec) {
  auto out_dims = conv_out_dims(x.shape(), w.shape(), spec);
  Geometry g = conv_geometry(x.shape(), w.shape(), spec, out_dims);
  T out(with_spatial(x.shape(), w.shape()[0], out_dims), x.dtype());
  conv_fwd<C>(x.data<C>(), w.data<C>(), bias ? bias->data<C>() : nullptr, out.data<C>(), x.shape()[0], x.shape()[1],
              w.shape()[0], spec.groups, g);
  return out;
}

template <class C> T conv_transpose_as(const T& x, const T& w, const std::optional<T>& bias, const ConvSpec& spec) {
  auto out_dims = conv_transpose_out_dims(x.shape(), w.shape(), spec);
  size_t s = x.shape().rank() - 2;
  Geometry g = window::make(out_dims, window::spatial(w.shape(), s), spec.stride, spec.padding, spec.dilation,
                            window::spatial(x.shape(), s));
  size_t cout = w.shape()[1] * spec.groups;
  T out(with_spatial(x.shape(), cout, out_dims), x.dtype());
  conv_transpose_fwd<C>(x.data<C>(), w.data<C>(), bias ? bias->data<C>() : nullptr, out.data<C>(), x.shape()[0],
                        x.shape()[1], cout, spec.groups, g);
  return out;
}

template <class C>
ConvGradients<T> conv_backward_as(const T& x, const T& w, bool has_bias, const T& grad, const ConvSpec& spec) {
  size_t s = x.shape().rank() - 2, batch = x.shape()[0], cin = x.shape()[1], cout = w.shape()[0];
  Geometry g = conv_geometry(x.shape(), w.shape(), spec, window::spatial(grad.shape(), s));
  ConvGradients<T> out{T(x.shape(), x.dtype()), T(w.shape(), w.dtype()), std::nullopt};
  conv_transpose_fwd<C>(grad.data<C>(), w.data<C>(), nullptr, out.x.data<C>(), batch, cout, cin, spec.groups, g);
  weight_grad<C>(grad.data<C>(), cout, x.data<C>(), cin, batch, spec.groups, g, out.weight.data<C>());
  if (has_bias) {
    out.bias = T(Shape{cout}, x.dtype());
    bias_grad<C>(grad.data<C>(), batch, cout, g.out_size(), out.bias->data<C>());
  }
  return out;
}

template <class C> ConvGradients<T> conv_transpose_backward_as(const T& x, const T& w, bool has_bias, const T& grad,
                                                               const ConvSpec& spec) {
  size_t s = x.shape().rank() - 2, batch = x.shape()[0], cin = x.shape()[1], cout = w.shape()[1] * spec.groups;
  Geometry g = window::make(window::spatial(grad.shape(), s), window::spatial(w.shape(), s), spec.stride, spec.padding,
                            spec.dilation, window::spatial(x.shape(), s));
  ConvGradients<T> out{T(x.shape(), x.dtype()), T(w.shape(), w.dtype()), std::nullopt};
  conv_fwd<C>(grad.data<C>(), w.data<C>(), nullptr, out.x.data<C>(), batch, cout, cin, spec.groups, g);
  weight_grad<C>(x.data<C>(), cin, grad.data<C>(), cout, batch, spec.groups, g, out.weight.data<C>());
  if (has_bias) {
    out.bias = T(Shape{cout}, x.dtype());
    bias_grad<C>(grad.data<C>(), batch, cout, g.in_size(), out.bias->data<C>());
  }
  return out;
}

// Operands in the compute dtype (contiguous); results back in the caller's dtype.
T prep(const T& t, DType cd) { return to_dtype(t, cd); }
std::optional<T> prep(const std::optional<T>& t, DType cd) {
  if (!t) return std::nullopt;
  return to_dtype(*t, cd);
}
ConvGradients<T> back_to(ConvGradients<T> g, DType d) {
  if (g.x.dtype() == d) return g;
  ConvGradients<T> out{to_dtype(g.x, d), to_dtype(g.weight, d), std::nullopt};
  if (g.bias) out.bias = to_dtype(*g.bias, d);
  return out;
}

}  // namespace

T conv(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  return to_dtype(window::in_compute_type(
                      cd, [&](auto c) { return conv_as<decltype(c)>(prep(x, cd), prep(w, cd), prep(bias, cd), spec); }),
                  d);
}

T conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  return to_dtype(
      window::in_compute_type(
          cd, [&](auto c) { return conv_transpose_as<decltype(c)>(prep(x, cd), prep(w, cd), prep(bias, cd), spec); }),
      d);
}

ConvGradients<T> conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  return back_to(window::in_compute_type(cd,
                                         [&](auto c) {
                                           return conv_backward_as<decltype(c)>(prep(x, cd), prep(w, cd), has_bias,
                                                                                prep(grad, cd), spec);
                                         }),
                 d);
}

ConvGradients<T> conv_transpose_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  DType d = x.dtype(), cd = window::compute_dtype(d);
  return back_to(window::in_compute_type(cd,
                                         [&](auto c) {
                                           return conv_transpose_backward_as<decltype(c)>(
                                               prep(x, cd), prep(w, cd), has_bias, prep(grad, cd), spec);
                                         }),
                 d);
}

}  // namespace scorch::backends::cpu::kernels
