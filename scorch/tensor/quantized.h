#pragma once
// QTensor<B, D>: a quantized float tensor — integer values with the scales and offsets of a QuantScheme
// (core/quant_scheme.h) — and the functions that make one from a float tensor, read it back and multiply by it.
// Parameters are computed as PyTorch's observers do (symmetric: max|x| / ((qmax − qmin) / 2); affine: the
// range [min(x, 0), max(x, 0)] over qmax − qmin, offset qmin − round(min / scale)), in f32, with a scale of at
// least f32's epsilon.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "scorch/core/error.h"
#include "scorch/core/quant_scheme.h"
#include "scorch/tensor/functional.h"
#include "scorch/tensor/functional_fused.h"
#include "scorch/tensor/tensor.h"

namespace scorch {

template <class B, size_t D> struct QTensor;

namespace quant {

namespace detail {
template <class B> using FOps = KindOps<B, Float>;
template <class B> using IOps = KindOps<B, Int>;

/// x's min (or max) over each group of the scheme, shaped as params_shape (f32).
template <class B>
typename B::FloatTensor group_extreme(const typename B::FloatTensor& x, const QuantScheme& s, bool maximum) {
  using F = FOps<B>;
  auto wide = F::mask_fill(F::cast(x, DType::F32), F::is_nan(x), Scalar(0.0));
  const Shape& shape = x.shape();
  Shape target = params_shape(shape, s);
  auto reduce = [&](typename B::FloatTensor t, size_t dim) {
    return maximum ? F::max_dim(std::move(t), dim) : F::min_dim(std::move(t), dim);
  };
  if (s.level == QuantLevel::Tensor) return F::reshape(maximum ? F::max(wide) : F::min(wide), target);
  size_t axis = s.axis, n = shape[axis];
  if (s.level == QuantLevel::Channel) {
    std::vector<size_t> order{axis};
    for (size_t d = 0; d < shape.rank(); ++d)
      if (d != axis) order.push_back(d);
    return F::reshape(reduce(F::reshape(F::permute(wide, order), Shape{n, shape.num_elements() / n}), 1), target);
  }
  size_t blocks = target[axis], padded = blocks * s.block_size;
  if (padded != n) {  // zeros never move a range that is widened to include 0
    Shape pad = shape;
    pad[axis] = padded - n;
    wide = F::cat({wide, F::zeros(pad, x.device(), DType::F32)}, axis);
  }
  Shape split = target;  // [..., blocks, block_size, ...]
  split.insert(axis + 1, s.block_size);
  return F::reshape(reduce(F::reshape(wide, split), axis + 1), target);
}
}  // namespace detail

/// Scales and offsets (f32, i32) for values observed in [min, max] (tensors of the scheme's params shape).
template <class B, size_t D> std::pair<Tensor<B, D>, Tensor<B, D, Int>> params_from_range(const Tensor<B, D>& min,
                                                                                          const Tensor<B, D>& max,
                                                                                          const QuantScheme& s) {
  QuantRange r = quant_range(s.value);
  double eps = std::numeric_limits<float>::epsilon(), qmin = double(r.qmin), qmax = double(r.qmax);
  auto low = min.cast(DType::F32).clamp_max(Scalar(0.0)), high = max.cast(DType::F32).clamp_min(Scalar(0.0));
  if (s.mode == QuantMode::Symmetric) {
    auto scale = low.neg().max_pair(high).div_scalar(Scalar((qmax - qmin) / 2)).clamp_min(Scalar(eps));
    int64_t offset = r.qmin < 0 ? 0 : (r.qmin + r.qmax + 1) / 2;
    Shape ones = scale.shape();
    for (size_t d = 0; d < D; ++d) ones[d] = 1;  // one offset serves every group
    return {scale, Tensor<B, D, Int>::full(ones, Scalar(offset), scale.device(), DType::I32)};
  }
  auto scale = high.sub(low).div_scalar(Scalar(qmax - qmin)).clamp_min(Scalar(eps));
  auto offset = low.div(scale).round().neg().add_scalar(Scalar(qmin)).clamp(Scalar(qmin), Scalar(qmax));
  return {scale, offset.int_().cast(DType::I32)};
}

}  // namespace quant

/// Integer values with their scheme's scales and offsets; x ≈ (values − offsets)·scales.
template <class B, size_t D> struct QTensor {
  using Backend = B;
  /// int8 / uint8 values of the logical shape; q4: uint8, the last dim halved (two values a byte).
  Tensor<B, D, Int> values;
  /// f32 scales of quant::params_shape.
  Tensor<B, D> scales;
  /// i32 offsets (zero points) of the scales' shape, or one offset for all (every dim 1: symmetric schemes).
  Tensor<B, D, Int> offsets;
  QuantScheme scheme;
  /// How a layer that multiplies by this tensor quantizes its input (static, from calibration; dynamic by default).
  InputQuant input;
  /// The float dtype the values stand for: dequantize()'s.
  DType dtype = DType::F32;

  /// The float tensor's shape.
  Shape shape() const {
    Shape s = values.shape();
    if (scheme.value == QuantValue::Q4) s[D - 1] *= 2;
    return s;
  }
  typename B::Device device() const { return values.device(); }
  /// Bytes of values, scales and offsets.
  size_t bytes() const {
    return values.shape().num_elements() + 4 * (scales.shape().num_elements() + offsets.shape().num_elements());
  }
  /// The float tensor the values stand for, in its dtype.
  Tensor<B, D> dequantize() const { return dequantize(dtype); }
  /// The float tensor the values stand for, in dtype `as`.
  Tensor<B, D> dequantize(DType as) const {
    return Tensor<B, D>(
        ModuleOpsOf<B>::dequantize(values.primitive(), scales.primitive(), offsets.primitive(), scheme, as));
  }
  /// The same quantized tensor with f applied to each of its tensors (moves between devices and backends).
  template <class F> auto map(F&& f) const {
    auto v = f(values);
    using Out = QTensor<typename decltype(v)::Backend, D>;
    return Out{std::move(v), f(scales), f(offsets), scheme, input, dtype};
  }

  /// x quantized with the given scales and offsets (scheme's params shape).
  static QTensor quantize_with(Tensor<B, D> x, const QuantScheme& scheme, Tensor<B, D> scales,
                               Tensor<B, D, Int> offsets) {
    quant::check_scheme("quantize", x.shape(), scheme);
    if constexpr (AutodiffBackend<B>) {  // quantized values are constants: no graph behind them
      x = x.detach();
      scales = scales.detach();
    }
    Shape expected = quant::params_shape(x.shape(), scheme);
    if (scales.shape() != expected || !quant::offsets_fit(offsets.shape(), expected))
      throw ShapeError("quantize", "scales " + scales.shape().to_string() + " and offsets " +
                                       offsets.shape().to_string() + " must be " + expected.to_string() +
                                       " (offsets may be all 1s) for " + x.shape().to_string() + " (" +
                                       to_string(scheme) + ")");
    scales = scales.cast(DType::F32);
    offsets = offsets.cast(DType::I32);
    auto v = ModuleOpsOf<B>::quantize(x.primitive(), scales.primitive(), offsets.primitive(), scheme);
    return QTensor{
        Tensor<B, D, Int>(std::move(v)), std::move(scales), std::move(offsets), scheme, InputQuant{}, x.dtype()};
  }
  /// x quantized with parameters from its own min and max (per group of the scheme).
  static QTensor quantize(const Tensor<B, D>& x, const QuantScheme& scheme) {
    quant::check_scheme("quantize", x.shape(), scheme);
    if (x.shape().num_elements() == 0)
      throw ShapeError("quantize", "an empty tensor " + x.shape().to_string() + " has no range to take scales from");
    auto min = Tensor<B, D>(quant::detail::group_extreme<B>(x.primitive(), scheme, false));
    auto max = Tensor<B, D>(quant::detail::group_extreme<B>(x.primitive(), scheme, true));
    auto [scales, offsets] = quant::params_from_range(min, max, scheme);
    return quantize_with(x, scheme, std::move(scales), std::move(offsets));
  }
};

namespace quant {

/// x·W + b with W quantized as [k, n] (weight_t false) or [n, k] (true, PyTorch's layout), x [..., k]; the input is
/// quantized as w.input says. Integer kernels where the backend has them, else the provided composition.
template <class B, size_t D>
Tensor<B, D> linear(const Tensor<B, D>& x, const QTensor<B, 2>& w, bool weight_t,
                    const std::optional<Tensor<std::type_identity_t<B>, 1>>& bias = std::nullopt, bool relu = false) {
  Shape ws = w.shape();
  size_t k = weight_t ? ws[1] : ws[0], n = weight_t ? ws[0] : ws[1];
  if (x.shape()[D - 1] != k)
    throw ShapeError("quantized_linear", "input " + x.shape().to_string() + " must end in " + std::to_string(k) +
                                             " for the weight " + ws.to_string());
  if (bias && bias->shape() != Shape{n})
    throw ShapeError("quantized_linear", "bias " + bias->shape().to_string() + " must be [" + std::to_string(n) + "]");
  if (weight_t && w.scheme.value == QuantValue::Q4)  // packed along k: dequantize-on-load through the composition
    return functional::linear(x, w.dequantize(x.dtype()).transpose(), bias, relu);
  size_t rows = k ? x.shape().num_elements() / k : 0;
  Shape out = x.shape();
  out[D - 1] = n;
  QuantScheme s = w.scheme;
  auto values = weight_t ? w.values.transpose() : w.values;
  auto scales = weight_t ? w.scales.transpose() : w.scales;
  auto offsets = weight_t ? w.offsets.transpose() : w.offsets;
  if (weight_t && s.level != QuantLevel::Tensor) s.axis = 1 - s.axis;
  std::optional<typename B::FloatTensor> b;
  if (bias) b = bias->primitive();
  auto flat = x.template reshape<2>({rows, k});
  auto y = ModuleOpsOf<B>::quantized_linear(flat.primitive(), values.primitive(), scales.primitive(),
                                            offsets.primitive(), b, s, w.input, relu);
  auto result = Tensor<B, 2>(std::move(y)).template reshape<D>(out);
  return result.dtype() == x.dtype() ? result : result.cast(x.dtype());
}

/// conv2d of x [batch, c, h, w] with the quantized weight [o, c, kh, kw] as unfold4d's patches through
/// quantized_linear (integer kernels where the backend has them); groups, or scales other than per tensor or per
/// output channel, dequantize the weight.
template <class B> Tensor<B, 4> conv2d(const Tensor<B, 4>& x, const QTensor<B, 4>& w,
                                       const std::optional<Tensor<std::type_identity_t<B>, 1>>& bias,
                                       const functional::ConvOptions<2>& o) {
  Shape ws = w.shape();
  bool per_output =
      w.scheme.level == QuantLevel::Tensor || (w.scheme.level == QuantLevel::Channel && w.scheme.axis == 0);
  if (o.groups != 1 || !per_output) return functional::conv(x, w.dequantize(x.dtype()), bias, o);
  if (x.shape()[1] != ws[1])
    throw ShapeError("conv2d", "input " + x.shape().to_string() + " has " + std::to_string(x.shape()[1]) +
                                   " channels, the quantized weight " + ws.to_string() + " takes " +
                                   std::to_string(ws[1]));
  size_t batch = x.shape()[0], out_c = ws[0], patch = ws[1] * ws[2] * ws[3];
  auto patches = functional::unfold4d(x, {ws[2], ws[3]}, {o.stride, o.padding, o.dilation});  // [batch, patch, L]
  size_t windows = patches.shape()[2], oh = 0, ow = 0;
  for (size_t i = 0; i < 2; ++i) {
    size_t span = o.dilation[i] * (ws[2 + i] - 1) + 1, padded = x.shape()[2 + i] + 2 * o.padding[i];
    (i == 0 ? oh : ow) = padded >= span ? (padded - span) / o.stride[i] + 1 : 0;
  }
  auto rows = patches.swap_dims(1, 2).template reshape<2>({batch * windows, patch});
  auto flat2 = [](const auto& t, size_t lead) {
    return t.template reshape<2>({lead, t.shape().num_elements() / std::max<size_t>(lead, 1)});
  };
  QTensor<B, 2> flat{flat2(w.values, out_c),
                     flat2(w.scales, w.scales.shape()[0]),
                     flat2(w.offsets, w.offsets.shape()[0]),
                     w.scheme,
                     w.input,
                     w.dtype};
  auto y = linear(rows, flat, true, bias);  // [batch · L, o]
  return y.template reshape<3>({batch, windows, out_c}).swap_dims(1, 2).template reshape<4>({batch, out_c, oh, ow});
}

}  // namespace quant
}  // namespace scorch
