// Quantization: schemes, QTensor, the Cpu integer kernel against the provided composition, observers, records of
// quantized parameters and post-training quantization of a model. Values against PyTorch are in the conformance
// suite (q_* cases, tests/conformance/gen_quant_fixtures.py).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "scorch/scorch.hpp"

namespace scorch {
namespace {

using B = Cpu;
using quant::QuantizeOptions;

Tensor<B, 2> randn(size_t rows, size_t cols, double scale = 1.0) {
  return Tensor<B, 2>::random({rows, cols}, Distribution::normal(0.0, scale));
}

TEST(QuantScheme, PrintsAndParses) {
  for (QuantScheme s : {QuantScheme::int8(), QuantScheme::int8_per_channel(1), QuantScheme::q4_blocks(0, 16),
                        QuantScheme::int8().with_mode(QuantMode::Affine)})
    EXPECT_EQ(parse_quant_scheme(to_string(s)), s) << to_string(s);
  EXPECT_THROW(parse_quant_scheme("int8 symmetric"), FormatError);
  EXPECT_THROW(parse_quant_scheme("int9 symmetric tensor axis=0 block=32"), FormatError);
  EXPECT_THROW(parse_quant_scheme("int8 symmetric tensor axis=x block=32"), FormatError);
  EXPECT_THROW(parse_quant_scheme("int8 symmetric block axis=0 block=0"), FormatError);
}

TEST(QuantScheme, ChoosesPyTorchsParameters) {
  // fbgemm's ChooseQuantizationParams: the range widened to 0, the offset nudged to the nearest integer.
  QuantParams p = choose_quant_params(-1.0f, 3.0f, quant_range(QuantValue::UInt8));
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.offset, 64);
  QuantParams reduced = choose_quant_params(-1.0f, 3.0f, quant_range(QuantValue::UInt8, true));
  EXPECT_FLOAT_EQ(reduced.scale, 4.0f / 127.0f);
  EXPECT_EQ(reduced.offset, 32);
  EXPECT_FLOAT_EQ(choose_quant_params(0.0f, 0.0f, quant_range(QuantValue::UInt8)).scale, 0.1f);
  QuantParams tiny = choose_quant_params(0.0f, 1e-6f, quant_range(QuantValue::UInt8));
  EXPECT_FLOAT_EQ(tiny.scale, 6.1e-5f);
  EXPECT_EQ(tiny.offset, 0);
  EXPECT_EQ(choose_quant_params(2.0f, 5.0f, quant_range(QuantValue::UInt8)).offset, 0);
  EXPECT_EQ(choose_quant_params(-5.0f, -2.0f, quant_range(QuantValue::UInt8)).offset, 255);
  QuantParams nan = choose_quant_params(std::nanf(""), 2.0f, quant_range(QuantValue::UInt8));  // NaN: no range
  EXPECT_EQ(nan.offset, 0);
  EXPECT_FLOAT_EQ(nan.scale, 2.0f / 255.0f);
  QuantParams inf = choose_quant_params(-INFINITY, INFINITY, quant_range(QuantValue::UInt8));
  EXPECT_TRUE(inf.offset >= 0 && inf.offset <= 255);
}

TEST(QTensor, RoundTripsWithinHalfAStep) {
  auto x = randn(12, 64, 2.0);
  for (QuantScheme s : {QuantScheme::int8(), QuantScheme::int8_per_channel(0), QuantScheme::int8_per_channel(1),
                        QuantScheme::int8().with_mode(QuantMode::Affine), QuantScheme::q4_blocks(1, 16),
                        QuantScheme::q4_blocks(0, 5)}) {
    auto q = QTensor<B, 2>::quantize(x, s);
    EXPECT_EQ(q.shape(), x.shape()) << to_string(s);
    EXPECT_EQ(q.scales.shape(), quant::params_shape(x.shape(), s)) << to_string(s);
    if (s.level == QuantLevel::Block) continue;  // blocks: checked against the largest scale below
    auto err = q.dequantize().sub(x).abs();
    auto half_step = q.scales.mul_scalar(Scalar(0.5 + 1e-4)).expand_to(x.shape());
    EXPECT_FALSE(err.greater(half_step).any().into_scalar().to_bool()) << to_string(s);
  }
  auto q4 = QTensor<B, 2>::quantize(x, QuantScheme::q4_blocks(1, 16));
  EXPECT_EQ(q4.values.shape(), (Shape{12, 32}));
  EXPECT_EQ(q4.values.dtype(), DType::U8);
  double worst = q4.dequantize().sub(x).abs().max().into_scalar().to_double();
  EXPECT_LE(worst, q4.scales.max().into_scalar().to_double() * 0.5 + 1e-6);
}

TEST(QTensor, RejectsBadSchemesAndParameters) {
  auto x = randn(3, 5);
  using Q = QTensor<B, 2>;
  EXPECT_THROW(Q::quantize(x, QuantScheme::int8_per_channel(2)), ShapeError);
  EXPECT_THROW(Q::quantize(x, QuantScheme::q4_blocks(1, 4)), ShapeError);  // odd last dim
  EXPECT_THROW(Q::quantize(randn(3, 4), QuantScheme::q4_blocks(0, 0)), ValueError);
  EXPECT_THROW(Q::quantize(Tensor<B, 2>::zeros({0, 4}), QuantScheme::int8()), ShapeError);
  auto scales = Tensor<B, 2>::ones({3, 1});
  auto offsets = Tensor<B, 2, Int>::zeros({1, 1});
  try {
    QTensor<B, 2>::quantize_with(x, QuantScheme::int8(), scales, offsets);
    FAIL() << "mismatched scales were accepted";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("[quantize] scales [3, 1]"), std::string::npos) << e.what();
  }
}

TEST(QTensor, KeepsTheFloatDtype) {
  auto x = randn(4, 6).cast(DType::F64);
  auto q = QTensor<B, 2>::quantize(x, QuantScheme::int8_per_channel(0));
  EXPECT_EQ(q.dtype, DType::F64);
  EXPECT_EQ(q.dequantize().dtype(), DType::F64);
  EXPECT_EQ(q.scales.dtype(), DType::F32);
}

TEST(QuantizedLinearCpu, RejectsOperandsThatDoNotFit) {
  auto x = randn(3, 8);
  auto q = QTensor<B, 2>::quantize(randn(8, 5), QuantScheme::int8_per_channel(1));
  auto call = [&](const B::FloatTensor& in, const B::FloatTensor& scales, const std::optional<B::FloatTensor>& b) {
    return Cpu::module_quantized_linear(in, q.values.primitive(), scales, q.offsets.primitive(), b, q.scheme, {},
                                        false);
  };
  EXPECT_NO_THROW(call(x.primitive(), q.scales.primitive(), std::nullopt));
  EXPECT_THROW(call(randn(3, 7).primitive(), q.scales.primitive(), std::nullopt), ShapeError);
  EXPECT_THROW(call(x.primitive(), randn(1, 4).primitive(), std::nullopt), ShapeError);
  EXPECT_THROW(call(x.primitive(), q.scales.primitive(), randn(1, 4).reshape<1>({4}).primitive()), ShapeError);
  QuantScheme past_rank = q.scheme;
  past_rank.axis = 5;
  EXPECT_THROW(Cpu::module_quantized_linear(x.primitive(), q.values.primitive(), q.scales.primitive(),
                                            q.offsets.primitive(), std::nullopt, past_rank, {}, false),
               ShapeError);
}

TEST(QTensor, SaturatesAndMapsNaNToTheOffset) {
  auto x = Tensor<B, 2>::from_data(TensorData({1e9f, -1e9f, std::nanf(""), 0.26f}, Shape{1, 4}));
  auto one = Tensor<B, 2>::full({1, 1}, Scalar(0.1));
  auto q = QTensor<B, 2>::quantize_with(x, QuantScheme::int8(), one, Tensor<B, 2, Int>::full({1, 1}, Scalar(5)));
  EXPECT_EQ(q.values.to_data().to_vector<int8_t>(), (std::vector<int8_t>{127, -128, 5, 8}));
}

/// The Cpu integer kernel and the provided composition on the same operands.
void expect_kernel_matches(size_t m, size_t k, size_t n, const QuantScheme& scheme, const InputQuant& input, bool bias,
                           bool relu, bool weight_t) {
  auto x = randn(m, k, 1.5);
  auto w = weight_t ? randn(n, k) : randn(k, n);
  auto q = QTensor<B, 2>::quantize(w, scheme);
  auto values = weight_t ? q.values.transpose() : q.values;
  auto scales = weight_t ? q.scales.transpose() : q.scales;
  auto offsets = weight_t ? q.offsets.transpose() : q.offsets;
  QuantScheme s = scheme;
  if (weight_t && s.level == QuantLevel::Channel) s.axis = 1 - s.axis;
  std::optional<B::FloatTensor> b;
  if (bias) b = randn(1, n).reshape<1>({n}).primitive();
  auto fast = Cpu::module_quantized_linear(x.primitive(), values.primitive(), scales.primitive(), offsets.primitive(),
                                           b, s, input, relu);
  auto slow = provided::module_quantized_linear<Cpu>(x.primitive(), values.primitive(), scales.primitive(),
                                                     offsets.primitive(), b, s, input, relu);
  Tensor<B, 2>(fast).to_data().assert_approx_eq(Tensor<B, 2>(slow).to_data(), Tolerance::rel_abs(1e-5, 1e-4));
}

TEST(QuantizedLinearCpu, MatchesTheComposition) {
  InputQuant dynamic, reduced, fixed{false, false, QuantValue::UInt8, 0.02, 120};
  reduced.reduce_range = true;
  InputQuant signed_input{false, false, QuantValue::Int8, 0.03, -4};
  auto per_channel = QuantScheme::int8_per_channel(1), per_tensor = QuantScheme::int8();
  expect_kernel_matches(7, 33, 19, per_channel, dynamic, true, false, false);  // tails in every dim
  expect_kernel_matches(64, 128, 96, per_channel, dynamic, true, true, false);
  expect_kernel_matches(1, 256, 50, per_tensor, reduced, false, false, false);
  expect_kernel_matches(50, 40, 30, QuantScheme::int8_per_channel(0), fixed, true, false, true);  // [n, k] layout
  expect_kernel_matches(9, 17, 5, per_tensor.with_mode(QuantMode::Affine), signed_input, true, true, false);
  expect_kernel_matches(3, 1, 2, per_channel, dynamic, false, false, false);
}

TEST(QuantizedLinearCpu, HandlesEmptyAndNonFiniteInputs) {
  auto q = QTensor<B, 2>::quantize(randn(8, 4), QuantScheme::int8_per_channel(1));
  auto y = quant::linear(Tensor<B, 2>::zeros({0, 8}), q, false);
  EXPECT_EQ(y.shape(), (Shape{0, 4}));
  auto x = randn(2, 8);
  auto with_nan = x.slice_assign({Slice(0, 1), Slice(0, 1)}, Tensor<B, 2>::full({1, 1}, Scalar(NAN)));
  auto out = quant::linear(with_nan, q, false);
  EXPECT_FALSE(out.is_nan().any().into_scalar().to_bool());
}

TEST(RangeObserver, SummarisesBatches) {
  auto batch = [](std::vector<float> v) { return TensorData(v, Shape{v.size()}); };
  quant::RangeObserver minmax;
  minmax.observe(batch({-1, 2}));
  minmax.observe(batch({-3, 1, NAN}));
  EXPECT_EQ(minmax.range(), (std::pair<float, float>{-3, 2}));
  quant::RangeObserver avg({quant::ObserverKind::MovingAverage, 0.5});
  avg.observe(batch({-2, 2}));
  avg.observe(batch({-4, 6}));
  EXPECT_EQ(avg.range(), (std::pair<float, float>{-3, 4}));
  std::vector<float> many(1000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<float>(i);
  many[999] = 1e6f;  // an outlier the percentile clips
  quant::RangeObserver pct({quant::ObserverKind::Percentile, 0.01, 99.0});
  pct.observe(batch(many));
  auto [lo, hi] = pct.range();
  EXPECT_NEAR(lo, 10, 1);
  EXPECT_NEAR(hi, 989, 1);
  EXPECT_THROW(quant::RangeObserver({quant::ObserverKind::Percentile, 0.01, 20.0}).observe(batch({1})), ValueError);
  EXPECT_THROW(minmax.observe(TensorData({1, 2}, Shape{2})), DTypeError);
}

}  // namespace
}  // namespace scorch
