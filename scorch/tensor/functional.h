#pragma once
// Functional ops (scorch::functional): convolution, transposed convolution, pooling, adaptive
// pooling, interpolation, unfold/fold and attention on Float tensors laid out
// [batch, channels, spatial...], as in the Burn Book. Arguments are checked
// here; the backend's module ops do the work. The *_backward functions give the gradients
// autodiff uses and are public for custom ops.
#include <array>
#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/tensor/functional_checks.h"
#include "scorch/tensor/tensor.h"

namespace scorch::functional {

/// One value per spatial dim.
template <size_t N> using Size = std::array<size_t, N>;
/// N copies of v.
template <size_t N> constexpr Size<N> filled(size_t v) {
  Size<N> s{};
  s.fill(v);
  return s;
}

/// Convolution options (PyTorch defaults: stride 1, no padding, no dilation, one group).
template <size_t N> struct ConvOptions {
  Size<N> stride = filled<N>(1);
  Size<N> padding = filled<N>(0);
  Size<N> dilation = filled<N>(1);
  size_t groups = 1;
};
/// Transposed convolution options; padding_out adds size at the end of each output dim.
template <size_t N> struct ConvTransposeOptions {
  Size<N> stride = filled<N>(1);
  Size<N> padding = filled<N>(0);
  Size<N> padding_out = filled<N>(0);
  Size<N> dilation = filled<N>(1);
  size_t groups = 1;
};
/// Unfold/fold (im2col/col2im) window options.
template <size_t N> struct UnfoldOptions {
  Size<N> stride = filled<N>(1);
  Size<N> padding = filled<N>(0);
  Size<N> dilation = filled<N>(1);
};
/// Interpolation mode and corner alignment (PyTorch's align_corners, default false).
struct InterpolateOptions {
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;
};

/// Gradients of conv/conv_transpose: input, weight and bias (when the op had one).
template <class B, size_t D> struct ConvGrads {
  Tensor<B, D> x, weight;
  std::optional<Tensor<B, 1>> bias;
};

namespace detail {
template <size_t N> SpatialDims dims(const Size<N>& s) { return SpatialDims(s.begin(), s.end()); }
template <size_t N> ConvSpec conv_spec(const ConvOptions<N>& o) {
  return {dims(o.stride), dims(o.padding), dims(o.dilation), {}, o.groups};
}
template <size_t N> ConvSpec conv_spec(const ConvTransposeOptions<N>& o) {
  return {dims(o.stride), dims(o.padding), dims(o.dilation), dims(o.padding_out), o.groups};
}
template <size_t N> PoolSpec pool_spec(const Size<N>& kernel, const Size<N>& stride, const Size<N>& padding,
                                       const Size<N>& dilation, bool ceil_mode, bool count_include_pad) {
  return {dims(kernel), dims(stride), dims(padding), dims(dilation), ceil_mode, count_include_pad};
}
template <class B> using ModOps = ModuleOpsOf<B>;
template <class T> std::optional<Shape> shape_of(const std::optional<T>& t) {
  if (!t) return std::nullopt;
  return t->shape();
}
template <class B> std::optional<typename B::FloatTensor> bias_primitive(const std::optional<Tensor<B, 1>>& b) {
  if (!b) return std::nullopt;
  return b->primitive();
}
template <class B, size_t D> ConvGrads<B, D> wrap_grads(ConvGradients<typename B::FloatTensor> g) {
  ConvGrads<B, D> out{Tensor<B, D>(std::move(g.x)), Tensor<B, D>(std::move(g.weight)), std::nullopt};
  if (g.bias) out.bias = Tensor<B, 1>(std::move(*g.bias));
  return out;
}
}  // namespace detail

/// Convolution of x [batch, in, spatial...] with weight [out, in/groups, kernel...] plus an
/// optional bias [out]; D = spatial rank + 2.
template <class B, size_t D> Tensor<B, D> conv(const Tensor<B, D>& x, const Tensor<B, D>& weight,
                                               const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                               const ConvOptions<D - 2>& options = {}) {
  auto spec = detail::conv_spec(options);
  auto lx = amp::to_autocast(x), lw = amp::to_autocast(weight);  // the autocast policy
  auto lb = amp::to_autocast(bias);
  check::conv("conv", x.shape(), lx.dtype(), weight.shape(), lw.dtype(), detail::shape_of(bias), spec, false);
  return Tensor<B, D>(detail::ModOps<B>::conv(lx.primitive(), lw.primitive(), detail::bias_primitive(lb), spec));
}
/// Gradients of conv for the output gradient grad.
template <class B, size_t D> ConvGrads<B, D> conv_backward(const Tensor<B, D>& x, const Tensor<B, D>& weight,
                                                           bool has_bias, const Tensor<B, D>& grad,
                                                           const ConvOptions<D - 2>& options = {}) {
  auto spec = detail::conv_spec(options);
  auto lx = amp::to_autocast(x), lw = amp::to_autocast(weight), lg = amp::to_autocast(grad);  // the autocast policy
  check::conv("conv_backward", x.shape(), lx.dtype(), weight.shape(), lw.dtype(), std::nullopt, spec, false);
  check::grad_shape("conv_backward", check::conv_output(x.shape(), weight.shape(), spec, false), grad.shape());
  return detail::wrap_grads<B, D>(
      detail::ModOps<B>::conv_backward(lx.primitive(), lw.primitive(), has_bias, lg.primitive(), spec));
}
/// Transposed convolution of x [batch, in, spatial...] with weight [in, out/groups, kernel...].
template <class B, size_t D> Tensor<B, D> conv_transpose(const Tensor<B, D>& x, const Tensor<B, D>& weight,
                                                         const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                                         const ConvTransposeOptions<D - 2>& options = {}) {
  auto spec = detail::conv_spec(options);
  auto lx = amp::to_autocast(x), lw = amp::to_autocast(weight);  // the autocast policy
  auto lb = amp::to_autocast(bias);
  check::conv("conv_transpose", x.shape(), lx.dtype(), weight.shape(), lw.dtype(), detail::shape_of(bias), spec, true);
  return Tensor<B, D>(
      detail::ModOps<B>::conv_transpose(lx.primitive(), lw.primitive(), detail::bias_primitive(lb), spec));
}
/// Gradients of conv_transpose for the output gradient grad.
template <class B, size_t D> ConvGrads<B, D> conv_transpose_backward(const Tensor<B, D>& x, const Tensor<B, D>& weight,
                                                                     bool has_bias, const Tensor<B, D>& grad,
                                                                     const ConvTransposeOptions<D - 2>& options = {}) {
  auto spec = detail::conv_spec(options);
  auto lx = amp::to_autocast(x), lw = amp::to_autocast(weight), lg = amp::to_autocast(grad);  // the autocast policy
  check::conv("conv_transpose_backward", x.shape(), lx.dtype(), weight.shape(), lw.dtype(), std::nullopt, spec, true);
  check::grad_shape("conv_transpose_backward", check::conv_output(x.shape(), weight.shape(), spec, true), grad.shape());
  return detail::wrap_grads<B, D>(
      detail::ModOps<B>::conv_transpose_backward(lx.primitive(), lw.primitive(), has_bias, lg.primitive(), spec));
}

/// 1-d convolution: x [batch, in, length].
template <class B> Tensor<B, 3> conv1d(const Tensor<B, 3>& x, const Tensor<B, 3>& w,
                                       const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                       const ConvOptions<1>& o = {}) {
  return conv(x, w, bias, o);
}
/// 2-d convolution: x [batch, in, height, width].
template <class B> Tensor<B, 4> conv2d(const Tensor<B, 4>& x, const Tensor<B, 4>& w,
                                       const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                       const ConvOptions<2>& o = {}) {
  return conv(x, w, bias, o);
}
/// 3-d convolution: x [batch, in, depth, height, width].
template <class B> Tensor<B, 5> conv3d(const Tensor<B, 5>& x, const Tensor<B, 5>& w,
                                       const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                       const ConvOptions<3>& o = {}) {
  return conv(x, w, bias, o);
}
/// 1-d transposed convolution.
template <class B> Tensor<B, 3> conv_transpose1d(const Tensor<B, 3>& x, const Tensor<B, 3>& w,
                                                 const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                                 const ConvTransposeOptions<1>& o = {}) {
  return conv_transpose(x, w, bias, o);
}
/// 2-d transposed convolution.
template <class B> Tensor<B, 4> conv_transpose2d(const Tensor<B, 4>& x, const Tensor<B, 4>& w,
                                                 const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                                 const ConvTransposeOptions<2>& o = {}) {
  return conv_transpose(x, w, bias, o);
}
/// 3-d transposed convolution.
template <class B> Tensor<B, 5> conv_transpose3d(const Tensor<B, 5>& x, const Tensor<B, 5>& w,
                                                 const std::type_identity_t<std::optional<Tensor<B, 1>>>& bias,
                                                 const ConvTransposeOptions<3>& o = {}) {
  return conv_transpose(x, w, bias, o);
}

/// Average pooling over windows of kernel; count_include_pad divides by the whole window.
template <class B, size_t D> Tensor<B, D> avg_pool(const Tensor<B, D>& x, const Size<D - 2>& kernel,
                                                   const Size<D - 2>& stride, const Size<D - 2>& padding,
                                                   bool count_include_pad = true, bool ceil_mode = false) {
  auto spec = detail::pool_spec<D - 2>(kernel, stride, padding, filled<D - 2>(1), ceil_mode, count_include_pad);
  check::pool("avg_pool", x.shape(), x.dtype(), spec);
  return Tensor<B, D>(detail::ModOps<B>::avg_pool(x.primitive(), spec));
}
/// Gradient of avg_pool with respect to x.
template <class B, size_t D> Tensor<B, D> avg_pool_backward(const Tensor<B, D>& x, const Tensor<B, D>& grad,
                                                            const Size<D - 2>& kernel, const Size<D - 2>& stride,
                                                            const Size<D - 2>& padding, bool count_include_pad = true,
                                                            bool ceil_mode = false) {
  auto spec = detail::pool_spec<D - 2>(kernel, stride, padding, filled<D - 2>(1), ceil_mode, count_include_pad);
  check::pool("avg_pool_backward", x.shape(), x.dtype(), spec);
  check::grad_shape("avg_pool_backward", check::pool_output(x.shape(), spec), grad.shape());
  return Tensor<B, D>(detail::ModOps<B>::avg_pool_backward(x.primitive(), grad.primitive(), spec));
}
/// Max pooling and, for each output, the flat index of the chosen input within its
/// channel's spatial block (PyTorch's convention).
template <class B, size_t D>
std::pair<Tensor<B, D>, Tensor<B, D, Int>> max_pool_with_indices(const Tensor<B, D>& x, const Size<D - 2>& kernel,
                                                                 const Size<D - 2>& stride, const Size<D - 2>& padding,
                                                                 const Size<D - 2>& dilation, bool ceil_mode = false) {
  auto spec = detail::pool_spec<D - 2>(kernel, stride, padding, dilation, ceil_mode, true);
  check::pool("max_pool", x.shape(), x.dtype(), spec);
  auto [out, idx] = detail::ModOps<B>::max_pool_with_indices(x.primitive(), spec);
  return {Tensor<B, D>(std::move(out)), Tensor<B, D, Int>(std::move(idx))};
}
/// Max pooling.
template <class B, size_t D> Tensor<B, D> max_pool(const Tensor<B, D>& x, const Size<D - 2>& kernel,
                                                   const Size<D - 2>& stride, const Size<D - 2>& padding,
                                                   const Size<D - 2>& dilation, bool ceil_mode = false) {
  auto spec = detail::pool_spec<D - 2>(kernel, stride, padding, dilation, ceil_mode, true);
  check::pool("max_pool", x.shape(), x.dtype(), spec);
  return Tensor<B, D>(detail::ModOps<B>::max_pool(x.primitive(), spec));
}
/// Gradient of max_pool/adaptive_max_pool with respect to x: grad routed to the indices.
template <class B, size_t D>
Tensor<B, D> max_pool_backward(const Tensor<B, D>& x, const Tensor<B, D>& grad, const Tensor<B, D, Int>& indices) {
  check::same_shape("max_pool_backward", grad.shape(), indices.shape());
  check::grad_shape("max_pool_backward", check::resized(x.shape(), check::spatial_of(grad.shape())), grad.shape());
  return Tensor<B, D>(detail::ModOps<B>::max_pool_backward(x.primitive(), grad.primitive(), indices.primitive()));
}
/// Average pooling to a fixed output size (windows as in PyTorch).
template <class B, size_t D> Tensor<B, D> adaptive_avg_pool(const Tensor<B, D>& x, const Size<D - 2>& output_size) {
  check::adaptive("adaptive_avg_pool", x.shape(), x.dtype(), detail::dims(output_size));
  return Tensor<B, D>(detail::ModOps<B>::adaptive_avg_pool(x.primitive(), detail::dims(output_size)));
}
/// Gradient of adaptive_avg_pool with respect to x.
template <class B, size_t D> Tensor<B, D> adaptive_avg_pool_backward(const Tensor<B, D>& x, const Tensor<B, D>& grad) {
  check::adaptive("adaptive_avg_pool_backward", x.shape(), x.dtype(), check::spatial_of(grad.shape()));
  check::grad_shape("adaptive_avg_pool_backward", check::resized(x.shape(), check::spatial_of(grad.shape())),
                    grad.shape());
  return Tensor<B, D>(detail::ModOps<B>::adaptive_avg_pool_backward(x.primitive(), grad.primitive()));
}
/// Max pooling to a fixed output size, with indices as max_pool_with_indices.
template <class B, size_t D>
std::pair<Tensor<B, D>, Tensor<B, D, Int>> adaptive_max_pool_with_indices(const Tensor<B, D>& x,
                                                                          const Size<D - 2>& output_size) {
  check::adaptive("adaptive_max_pool", x.shape(), x.dtype(), detail::dims(output_size));
  auto [out, idx] = detail::ModOps<B>::adaptive_max_pool_with_indices(x.primitive(), detail::dims(output_size));
  return {Tensor<B, D>(std::move(out)), Tensor<B, D, Int>(std::move(idx))};
}
/// Max pooling to a fixed output size.
template <class B, size_t D> Tensor<B, D> adaptive_max_pool(const Tensor<B, D>& x, const Size<D - 2>& output_size) {
  return adaptive_max_pool_with_indices(x, output_size).first;
}

/// 1-d average pooling of x [batch, channels, length].
template <class B> Tensor<B, 3> avg_pool1d(const Tensor<B, 3>& x, size_t kernel, size_t stride, size_t padding,
                                           bool count_include_pad = true, bool ceil_mode = false) {
  return avg_pool(x, Size<1>{kernel}, Size<1>{stride}, Size<1>{padding}, count_include_pad, ceil_mode);
}
/// 2-d average pooling of x [batch, channels, height, width].
template <class B> Tensor<B, 4> avg_pool2d(const Tensor<B, 4>& x, Size<2> kernel, Size<2> stride, Size<2> padding,
                                           bool count_include_pad = true, bool ceil_mode = false) {
  return avg_pool(x, kernel, stride, padding, count_include_pad, ceil_mode);
}
/// 1-d max pooling.
template <class B> Tensor<B, 3> max_pool1d(const Tensor<B, 3>& x, size_t kernel, size_t stride, size_t padding,
                                           size_t dilation = 1, bool ceil_mode = false) {
  return max_pool(x, Size<1>{kernel}, Size<1>{stride}, Size<1>{padding}, Size<1>{dilation}, ceil_mode);
}
/// 2-d max pooling.
template <class B> Tensor<B, 4> max_pool2d(const Tensor<B, 4>& x, Size<2> kernel, Size<2> stride, Size<2> padding,
                                           Size<2> dilation = {1, 1}, bool ceil_mode = false) {
  return max_pool(x, kernel, stride, padding, dilation, ceil_mode);
}
/// 1-d max pooling with indices.
template <class B> auto max_pool1d_with_indices(const Tensor<B, 3>& x, size_t kernel, size_t stride, size_t padding,
                                                size_t dilation = 1, bool ceil_mode = false) {
  return max_pool_with_indices(x, Size<1>{kernel}, Size<1>{stride}, Size<1>{padding}, Size<1>{dilation}, ceil_mode);
}
/// 2-d max pooling with indices.
template <class B> auto max_pool2d_with_indices(const Tensor<B, 4>& x, Size<2> kernel, Size<2> stride, Size<2> padding,
                                                Size<2> dilation = {1, 1}, bool ceil_mode = false) {
  return max_pool_with_indices(x, kernel, stride, padding, dilation, ceil_mode);
}
/// 1-d adaptive average pooling.
template <class B> Tensor<B, 3> adaptive_avg_pool1d(const Tensor<B, 3>& x, size_t size) {
  return adaptive_avg_pool(x, Size<1>{size});
}
/// 2-d adaptive average pooling.
template <class B> Tensor<B, 4> adaptive_avg_pool2d(const Tensor<B, 4>& x, Size<2> size) {
  return adaptive_avg_pool(x, size);
}
/// 1-d adaptive max pooling.
template <class B> Tensor<B, 3> adaptive_max_pool1d(const Tensor<B, 3>& x, size_t size) {
  return adaptive_max_pool(x, Size<1>{size});
}
/// 2-d adaptive max pooling.
template <class B> Tensor<B, 4> adaptive_max_pool2d(const Tensor<B, 4>& x, Size<2> size) {
  return adaptive_max_pool(x, size);
}

/// Resamples x [batch, channels, height, width] to output_size.
template <class B>
Tensor<B, 4> interpolate(const Tensor<B, 4>& x, Size<2> output_size, InterpolateOptions options = {}) {
  InterpolateSpec spec{detail::dims(output_size), options.mode, options.align_corners};
  check::interpolate("interpolate", x.shape(), x.dtype(), spec);
  return Tensor<B, 4>(detail::ModOps<B>::interpolate(x.primitive(), spec));
}
/// Gradient of interpolate with respect to x.
template <class B> Tensor<B, 4> interpolate_backward(const Tensor<B, 4>& x, const Tensor<B, 4>& grad,
                                                     Size<2> output_size, InterpolateOptions options = {}) {
  InterpolateSpec spec{detail::dims(output_size), options.mode, options.align_corners};
  check::interpolate("interpolate_backward", x.shape(), x.dtype(), spec);
  check::grad_shape("interpolate_backward", check::resized(x.shape(), spec.output_size), grad.shape());
  return Tensor<B, 4>(detail::ModOps<B>::interpolate_backward(x.primitive(), grad.primitive(), spec));
}

/// Sliding windows of x [batch, channels, h, w] as columns: [batch, channels·kh·kw, windows].
template <class B> Tensor<B, 3> unfold4d(const Tensor<B, 4>& x, Size<2> kernel, const UnfoldOptions<2>& o = {}) {
  auto spec = detail::pool_spec<2>(kernel, o.stride, o.padding, o.dilation, false, true);
  check::pool("unfold4d", x.shape(), x.dtype(), spec, true);
  return Tensor<B, 3>(detail::ModOps<B>::unfold(x.primitive(), spec));
}
/// The inverse layout of unfold4d: sums the columns of x back into [batch, channels, output_size].
template <class B>
Tensor<B, 4> fold4d(const Tensor<B, 3>& x, Size<2> output_size, Size<2> kernel, const UnfoldOptions<2>& o = {}) {
  auto spec = detail::pool_spec<2>(kernel, o.stride, o.padding, o.dilation, false, true);
  check::fold("fold4d", x.shape(), x.dtype(), detail::dims(output_size), spec);
  return Tensor<B, 4>(detail::ModOps<B>::fold(x.primitive(), detail::dims(output_size), spec));
}

/// Attention dropout with probability prob and a seed drawn from B's random stream (B::seed reproduces it); pass
/// the same value to attention_with_stats and attention_backward. Throws ValueError unless 0 ≤ prob < 1.
template <class B> AttentionDropout attention_dropout(double prob, const typename B::Device& device) {
  check::attention_dropout(prob);
  return {prob, prob > 0.0 ? KindOps<B, Float>::random_seed(device) : 0};
}

/// Scaled dot-product attention dropout(softmax(q·kᵀ/√d))·v on [batch, heads, seq, d]; mask (true =
/// ignore that key) broadcasts to [batch, heads, seq_q, seq_k]; scale defaults to 1/√d; causal also ignores key j
/// for query i when j > i (PyTorch's is_causal; Cuda's flash kernels make no mask tensor and skip those keys);
/// dropout zeroes each probability with that probability (scaling the rest by 1/(1 − dropout)), as PyTorch's
/// dropout_p, on any backend (the mask is drawn inside the op; the caller applies it only in training).
template <class B>
Tensor<B, 4> attention(const Tensor<B, 4>& q, const Tensor<B, 4>& k, const Tensor<B, 4>& v,
                       const std::type_identity_t<std::optional<Tensor<B, 4, Bool>>>& mask = std::nullopt,
                       std::optional<double> scale = std::nullopt, bool causal = false, double dropout = 0.0) {
  auto lq = amp::to_autocast(q), lk = amp::to_autocast(k), lv = amp::to_autocast(v);  // the autocast policy
  check::attention(q.shape(), k.shape(), v.shape(), detail::shape_of(mask), lq.dtype(), lk.dtype(), lv.dtype());
  AttentionDropout drop = attention_dropout<B>(dropout, q.device());
  std::optional<typename B::BoolTensor> m;
  if (mask) m = mask->primitive();
  double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(q.shape()[3])));
  return Tensor<B, 4>(detail::ModOps<B>::attention(lq.primitive(), lk.primitive(), lv.primitive(), m, s, causal, drop));
}

}  // namespace scorch::functional

#include "scorch/tensor/functional_fused.h"

namespace scorch {
/// Burn's name for the functional ops (burn::tensor::module).
namespace module = functional;
}  // namespace scorch
