// Linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, and the integer products
// MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv. Integer products are computed exactly in f64 (their
// operands are 8-bit, so every partial sum is an integer below 2^53) and requantized with round-half-to-even.
#include "scorch/import/onnx/runtime/op_call_impl.h"

namespace scorch::onnx {
namespace {

template <class B> using Values = std::vector<Value<B>>;
template <class B> using F = typename B::FloatTensor;
template <class B> using FO = KindOps<B, Float>;

/// Input i as f64 (an absent optional zero point is 0).
template <class B> F<B> wide(const OpCall<B>& c, size_t i) {
  if (!c.has(i)) return FO<B>::zeros(Shape{}, c.device(), DType::F64);
  return cast(Value<B>(c.in(i)), DType::F64).template take<Float>();
}

/// A per-axis parameter (scale or zero point: one value, or one per entry of target's dim axis) shaped to
/// broadcast against target; any other count is a ShapeError.
template <class B> F<B> per_axis(const OpCall<B>& c, F<B> p, const Shape& target, int64_t axis) {
  size_t n = p.shape().num_elements(), rank = target.rank();
  Shape line(std::vector<size_t>(rank, 1));
  if (n == 1) return FO<B>::reshape(p, line);
  size_t ax = c.axis(axis, rank);
  if (n != target[ax])
    c.template fail<ShapeError>("a scale or zero point of " + std::to_string(n) + " values for dim " +
                                std::to_string(ax) + " of " + target.to_string());
  line[ax] = n;
  return FO<B>::reshape(p, line);
}

/// Input i (absent: 0) as one value shaped to broadcast against rank dims; more values are a ShapeError.
template <class B> F<B> scalar_param(const OpCall<B>& c, size_t i, size_t rank) {
  F<B> p = wide(c, i);
  if (p.shape().num_elements() != 1)
    c.template fail<ShapeError>("input " + std::to_string(i) + " must hold one value (per-tensor)");
  return FO<B>::reshape(p, Shape(std::vector<size_t>(rank, 1)));
}

/// round(v) + zero point, saturated to dtype's range, as dtype.
template <class B> Value<B> saturate(F<B> v, F<B> zero_point, DType dtype) {
  double lo = dtype == DType::U8 ? 0 : dtype == DType::I8 ? -128 : -2147483648.0;
  double hi = dtype == DType::U8 ? 255 : dtype == DType::I8 ? 127 : 2147483647.0;
  F<B> q = FO<B>::clamp(FO<B>::add(FO<B>::round(v), zero_point), Scalar(lo), Scalar(hi));
  return cast(Value<B>::template of<Float>(q), dtype);
}

template <class B> Value<B> quantize(const OpCall<B>& c) {
  F<B> x = c.in_float(0);  // divided in its own precision, as ONNX's reference does
  int64_t axis = c.attr_int("axis", 1);
  DType dtype = c.has(2) ? c.in(2).dtype() : DType::U8;
  F<B> scale = FO<B>::cast(per_axis(c, wide(c, 1), x.shape(), axis), x.dtype());
  F<B> scaled = FO<B>::cast(FO<B>::div(x, scale), DType::F64);
  return saturate<B>(scaled, per_axis(c, wide(c, 2), x.shape(), axis), dtype);
}

template <class B> Value<B> dequantize(const OpCall<B>& c) {
  F<B> x = wide(c, 0);
  int64_t axis = c.attr_int("axis", 1);
  F<B> y =
      FO<B>::mul(FO<B>::sub(x, per_axis(c, wide(c, 2), x.shape(), axis)), per_axis(c, wide(c, 1), x.shape(), axis));
  return Value<B>::template of<Float>(FO<B>::cast(y, c.in(1).dtype()));
}

template <class B> Values<B> dynamic_quantize(const OpCall<B>& c) {
  F<B> x = c.in_float(0);
  auto flat = FO<B>::reshape(FO<B>::cast(x, DType::F64), Shape{x.shape().num_elements()});
  bool empty = x.shape().num_elements() == 0;
  double lo = empty ? 0.0 : std::min(0.0, FO<B>::into_data(FO<B>::min(flat)).template to_vector<double>()[0]);
  double hi = empty ? 0.0 : std::max(0.0, FO<B>::into_data(FO<B>::max(flat)).template to_vector<double>()[0]);
  float scale = float((hi - lo) / 255);
  double zp = scale == 0 ? 0 : std::clamp(std::nearbyint(0 - lo / double(scale)), 0.0, 255.0);
  F<B> zp_t = FO<B>::full(Shape(std::vector<size_t>(x.shape().rank(), 1)), Scalar(zp), c.device(), DType::F64);
  F<B> scaled = scale == 0 ? FO<B>::mul_scalar(x, Scalar(0.0)) : FO<B>::div_scalar(x, Scalar(double(scale)));
  scaled = FO<B>::cast(scaled, DType::F64);
  return {saturate<B>(scaled, zp_t, DType::U8), Value<B>::from_data(TensorData({scale}, {}), c.device()),
          Value<B>::from_data(TensorData(std::vector<uint8_t>{uint8_t(zp)}, Shape{}), c.device())};
}

/// a − zero point for a matmul operand: A's zero point is per row (dim −2), B's per column (dim −1).
template <class B> F<B> centered(const OpCall<B>& c, size_t value, size_t zero_point, bool rows) {
  F<B> v = wide(c, value), zp = wide(c, zero_point);
  if (zp.shape().num_elements() > 1 && v.shape().rank() < 2)
    c.template fail<ShapeError>("a per-row or per-column zero point needs a 2-D operand");
  return FO<B>::sub(v, per_axis(c, zp, v.shape(), rows ? -2 : -1));
}

/// Runs another operator of the table (MatMul, Conv) on f64 operands.
template <class B> F<B> run_float(const OpCall<B>& c, const char* op, std::vector<std::optional<Value<B>>> inputs) {
  Node node = c.node();
  node.op_type = op;
  node.outputs.resize(1);
  OpCall<B> inner(node, std::move(inputs), c.opset(), c.device());
  return std::move(op_table<B>().at(op)(inner).at(0)).template take<Float>();
}

template <class B> Value<B> matmul_integer(const OpCall<B>& c) {
  F<B> y = run_float(
      c, "MatMul",
      {Value<B>::template of<Float>(centered(c, 0, 2, true)), Value<B>::template of<Float>(centered(c, 1, 3, false))});
  return cast(Value<B>::template of<Float>(y), DType::I32);
}

template <class B> Value<B> conv_integer(const OpCall<B>& c) {
  F<B> x = FO<B>::sub(wide(c, 0), scalar_param(c, 2, c.in(0).shape().rank()));
  F<B> w = wide(c, 1);
  if (c.has(3)) w = FO<B>::sub(w, per_axis(c, wide(c, 3), w.shape(), 0));
  F<B> y = run_float(c, "Conv", {Value<B>::template of<Float>(x), Value<B>::template of<Float>(w)});
  return cast(Value<B>::template of<Float>(y), DType::I32);
}

/// QLinearMatMul / QLinearConv: the exact integer product rescaled by a_scale·b_scale / y_scale.
template <class B> Value<B> qlinear(const OpCall<B>& c, bool conv) {
  size_t rank = c.in(0).shape().rank();
  F<B> a = FO<B>::sub(wide(c, 0), scalar_param(c, 2, rank));
  F<B> b = wide(c, 3);
  F<B> b_scale = wide(c, 4), b_zp = wide(c, 5);
  int64_t b_axis = conv ? 0 : -1;
  b = FO<B>::sub(b, per_axis(c, b_zp, b.shape(), b_axis));
  std::vector<std::optional<Value<B>>> in(conv && c.has(8) ? 3 : 2);
  in[0] = Value<B>::template of<Float>(a), in[1] = Value<B>::template of<Float>(b);
  if (in.size() == 3) in[2] = Value<B>::template of<Float>(wide(c, 8));
  F<B> acc = run_float(c, conv ? "Conv" : "MatMul", std::move(in));
  size_t out_rank = acc.shape().rank();
  F<B> scale = FO<B>::mul(scalar_param(c, 1, out_rank), per_axis(c, b_scale, acc.shape(), conv ? 1 : -1));
  scale = FO<B>::div(scale, scalar_param(c, 6, out_rank));
  F<B> y_zp = scalar_param(c, 7, out_rank);
  return saturate<B>(FO<B>::mul(acc, scale), y_zp, c.in(7).dtype());
}

}  // namespace

template <class B> void register_quant_ops(OpTable<B>& t) {
  t["QuantizeLinear"] = [](const OpCall<B>& c) -> Values<B> { return {quantize(c)}; };
  t["DequantizeLinear"] = [](const OpCall<B>& c) -> Values<B> { return {dequantize(c)}; };
  t["DynamicQuantizeLinear"] = [](const OpCall<B>& c) { return dynamic_quantize(c); };
  t["MatMulInteger"] = [](const OpCall<B>& c) -> Values<B> { return {matmul_integer(c)}; };
  t["ConvInteger"] = [](const OpCall<B>& c) -> Values<B> { return {conv_integer(c)}; };
  t["QLinearMatMul"] = [](const OpCall<B>& c) -> Values<B> { return {qlinear(c, false)}; };
  t["QLinearConv"] = [](const OpCall<B>& c) -> Values<B> { return {qlinear(c, true)}; };
}

}  // namespace scorch::onnx

SCORCH_ONNX_INSTANTIATE(register_quant_ops)
