#pragma once
// Provided quantization ops (core/quant_scheme.h), composed from other ops: quantize and dequantize in f32 as
// PyTorch's (x·(1/scale) rounded half to even, plus the offset, clamped; (q − offset)·scale back), q4 packed two
// to a byte, and quantized_linear as its input quantized and dequantized (the product of the integers, which f32
// holds exactly, times the scales) through linear. Backends override quantized_linear with integer kernels.
#include <optional>
#include <vector>

#include "scorch/core/dtype.h"
#include "scorch/core/quant_scheme.h"
#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"
#include "scorch/core/tensor_data.h"

namespace scorch {
template <class B, class K> struct KindOps;
template <class B> struct ModuleOpsOf;
struct Float;
struct Int;

namespace provided {
namespace quant_detail {

/// The float shape stored values of shape `stored` stand for (q4: the last dim doubled).
inline Shape logical_shape(Shape stored, const QuantScheme& s) {
  if (s.value == QuantValue::Q4 && stored.rank() > 0) stored[stored.rank() - 1] *= 2;
  return stored;
}

/// The dtype quantized values of kind value are stored in (q4 packed in uint8).
inline DType storage_dtype(QuantValue value) { return value == QuantValue::Int8 ? DType::I8 : DType::U8; }

/// Per-block parameters [.., blocks, ..] repeated block_size times along axis and cut to n: one per element.
template <class B, class K, class T> T expand_blocks(const T& params, size_t axis, size_t block_size, size_t n) {
  using Ops = KindOps<B, K>;
  Shape lifted = params.shape();
  size_t blocks = lifted[axis];
  lifted.insert(axis + 1, 1);
  Shape wide = lifted;
  wide[axis + 1] = block_size;
  Shape flat = params.shape();
  flat[axis] = blocks * block_size;
  T out = Ops::reshape(Ops::expand(Ops::reshape(params, lifted), wide), flat);
  if (flat[axis] == n) return out;
  std::vector<SliceRange> ranges(flat.rank());
  for (size_t d = 0; d < flat.rank(); ++d) ranges[d] = SliceRange{0, d == axis ? n : flat[d], 1};
  return Ops::slice(out, ranges);
}

/// Scales or offsets broadcast to shape: one per element.
template <class B, class K, class T> T expand_params(const T& params, const Shape& shape, const QuantScheme& s) {
  using Ops = KindOps<B, K>;
  bool one_block = params.shape()[s.axis] == 1;  // broadcast: a block longer than the axis allocates nothing
  if (s.level != QuantLevel::Block || one_block || params.shape().num_elements() == 1)
    return Ops::expand(params, shape);
  return expand_blocks<B, K>(params, s.axis, s.block_size, shape[s.axis]);
}

/// Signed 4-bit values (I32, last dim even) packed low nibble first into uint8 [.., n / 2].
template <class B, class T> T pack_q4(const T& q) {
  using I = KindOps<B, Int>;
  Shape pairs = q.shape();
  size_t n = pairs[pairs.rank() - 1];
  pairs[pairs.rank() - 1] = n / 2;
  pairs.push_back(2);
  T grouped = I::reshape(q, pairs);
  auto half = [&](size_t which) {
    std::vector<SliceRange> ranges;
    for (size_t d = 0; d + 1 < pairs.rank(); ++d) ranges.push_back(SliceRange{0, pairs[d], 1});
    ranges.push_back(SliceRange{which, which + 1, 1});
    return I::bitwise_and_scalar(I::slice(grouped, ranges), Scalar(int64_t{15}));
  };
  T packed = I::bitwise_or(half(0), I::bitwise_left_shift_scalar(half(1), Scalar(int64_t{4})));
  Shape out = q.shape();
  out[out.rank() - 1] = n / 2;
  return I::cast(I::reshape(packed, out), DType::U8);
}

/// uint8 [.., m] of packed q4 values → I32 [.., 2m] in [-8, 7].
template <class B, class T> T unpack_q4(const T& packed) {
  using I = KindOps<B, Int>;
  T p = I::cast(packed, DType::I32);
  auto sign_extend = [](T v) {
    return I::sub_scalar(I::bitwise_xor_scalar(std::move(v), Scalar(int64_t{8})), Scalar(int64_t{8}));
  };
  T lo = sign_extend(I::bitwise_and_scalar(p, Scalar(int64_t{15})));
  T hi = sign_extend(I::bitwise_and_scalar(I::bitwise_right_shift_scalar(p, Scalar(int64_t{4})), Scalar(int64_t{15})));
  Shape column = p.shape();
  column.push_back(1);
  T both = I::cat({I::reshape(lo, column), I::reshape(hi, column)}, column.rank() - 1);
  Shape out = p.shape();
  out[out.rank() - 1] *= 2;
  return I::reshape(both, out);
}

}  // namespace quant_detail

/// x quantized: clamp(round(x·(1/scale)) + offset) in scheme's integer type (q4 packed along the last dim); NaN
/// quantizes to the offset.
template <class B> auto module_quantize(const typename B::FloatTensor& x, const typename B::FloatTensor& scales,
                                        const typename B::IntTensor& offsets, const QuantScheme& scheme) {
  using F = KindOps<B, Float>;
  using I = KindOps<B, Int>;
  quant::check_params("quantize", x.shape(), scales.shape(), offsets.shape(), scheme);
  auto wide = x.dtype() == DType::F32 ? x : F::cast(x, DType::F32);
  wide = F::mask_fill(wide, F::is_nan(wide), Scalar(0.0));
  auto inverse = F::recip(F::cast(scales, DType::F32));
  auto scaled = F::round(F::mul(wide, quant_detail::expand_params<B, Float>(inverse, x.shape(), scheme)));
  auto shift = I::into_float(quant_detail::expand_params<B, Int>(offsets, x.shape(), scheme), DType::F32);
  QuantRange r = quant_range(scheme.value);
  auto clamped = F::clamp(F::add(scaled, shift), Scalar(double(r.qmin)), Scalar(double(r.qmax)));
  auto q = F::into_int(clamped, DType::I32);
  if (scheme.value == QuantValue::Q4) return quant_detail::pack_q4<B>(q);
  return I::cast(q, quant_detail::storage_dtype(scheme.value));
}

/// (values − offset)·scale in dtype (q4 values unpacked first).
template <class B> auto module_dequantize(const typename B::IntTensor& values, const typename B::FloatTensor& scales,
                                          const typename B::IntTensor& offsets, const QuantScheme& scheme,
                                          DType dtype) {
  using F = KindOps<B, Float>;
  using I = KindOps<B, Int>;
  quant::check_params("dequantize", quant_detail::logical_shape(values.shape(), scheme), scales.shape(),
                      offsets.shape(), scheme);
  auto q = scheme.value == QuantValue::Q4 ? quant_detail::unpack_q4<B>(values) : I::cast(values, DType::I32);
  Shape shape = q.shape();
  auto centred = I::sub(q, I::cast(quant_detail::expand_params<B, Int>(offsets, shape, scheme), DType::I32));
  auto scale = quant_detail::expand_params<B, Float>(F::cast(scales, DType::F32), shape, scheme);
  auto out = F::mul(I::into_float(centred, DType::F32), scale);
  return dtype == DType::F32 ? out : F::cast(out, dtype);
}

/// Throws ShapeError unless quantized_linear's operands fit each other (every backend's override calls it first).
template <class F, class I> void check_quantized_linear(const F& x, const I& weight, const F& scales, const I& offsets,
                                                        const std::optional<F>& bias, const QuantScheme& scheme) {
  std::optional<Shape> bias_shape;
  if (bias) bias_shape = bias->shape();
  quant::check_linear("quantized_linear", x.shape(), quant_detail::logical_shape(weight.shape(), scheme),
                      scales.shape(), offsets.shape(), scheme, bias_shape ? &*bias_shape : nullptr);
}

/// The scale and offset quantized_linear quantizes x with: input's own, or (dynamic) from x's min and max.
template <class B> QuantParams input_params(const typename B::FloatTensor& x, const InputQuant& input) {
  if (!input.dynamic) return {static_cast<float>(input.scale), input.offset};
  using F = KindOps<B, Float>;
  if (x.shape().num_elements() == 0)
    return choose_quant_params(0.0f, 0.0f, quant_range(input.value, input.reduce_range));
  auto value = [](auto t) { return static_cast<float>(F::into_data(std::move(t)).value_at(0)); };
  auto finite = F::mask_fill(x, F::is_nan(x), Scalar(0.0));
  return choose_quant_params(value(F::min(finite)), value(F::max(finite)),
                             quant_range(input.value, input.reduce_range));
}

/// x [rows, k] (quantized as input says, or left float) times the quantized weight [k, n] (scheme's scales and
/// offsets), plus bias, relu when asked: f32 [rows, n].
template <class B> auto module_quantized_linear(const typename B::FloatTensor& x, const typename B::IntTensor& weight,
                                                const typename B::FloatTensor& scales,
                                                const typename B::IntTensor& offsets,
                                                const std::optional<typename B::FloatTensor>& bias,
                                                const QuantScheme& scheme, const InputQuant& input, bool relu) {
  using F = KindOps<B, Float>;
  using I = KindOps<B, Int>;
  using M = ModuleOpsOf<B>;
  check_quantized_linear(x, weight, scales, offsets, bias, scheme);
  auto xq = x.dtype() == DType::F32 ? x : F::cast(x, DType::F32);
  if (!input.weight_only) {
    QuantParams p = input_params<B>(x, input);
    Shape one{1, 1};
    auto x_scale = F::full(one, Scalar(double(p.scale)), x.device(), DType::F32);
    auto x_offset = I::full(one, Scalar(p.offset), x.device(), DType::I32);
    QuantScheme x_scheme{input.value, QuantMode::Affine, QuantLevel::Tensor, 0, 32};
    xq = M::dequantize(M::quantize(x, x_scale, x_offset, x_scheme), x_scale, x_offset, x_scheme, DType::F32);
  }
  auto w = M::dequantize(weight, scales, offsets, scheme, DType::F32);
  std::optional<typename B::FloatTensor> b;
  if (bias) b = bias->dtype() == DType::F32 ? *bias : F::cast(*bias, DType::F32);
  return M::linear(xq, w, b, relu);
}

}  // namespace provided
}  // namespace scorch
