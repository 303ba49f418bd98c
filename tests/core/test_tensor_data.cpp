#include <gtest/gtest.h>

#include <cmath>

#include "scorch/core/tensor_data.h"

namespace scorch {
namespace {

TEST(TensorData, ConstructConvertAndRead) {
  TensorData d(std::vector<float>{1.5f, -2.7f, 3.0f, 65504.f}, Shape{2, 2});
  EXPECT_EQ(d.dtype(), DType::F32);
  EXPECT_EQ(d.convert(DType::I32).to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 3, 65504}));
  EXPECT_EQ(d.convert(DType::Bool).to_vector<bool>(), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(d.convert(DType::F16).to_vector<float>()[3], 65504.f);
  EXPECT_FLOAT_EQ(d.convert(DType::BF16).to_vector<float>()[0], 1.5f);
  EXPECT_THROW(d.as_span<double>(), DTypeError);
  EXPECT_THROW(TensorData(std::vector<float>{1.f}, Shape{2}), ShapeError);
  EXPECT_THROW(TensorData::from_bytes(std::vector<std::byte>(3), Shape{1}, DType::F32), FormatError);
  // 2^64 elements wrap to 0, which the 0 bytes given would match unchecked.
  EXPECT_THROW(TensorData::from_bytes({}, Shape({size_t{1} << 32, size_t{1} << 32}), DType::F32), FormatError);
}

TEST(TensorData, AssertEqAndApprox) {
  TensorData a(std::vector<float>{1.f, 2.f, NAN}, Shape{3});
  TensorData b(std::vector<float>{1.f, 2.00001f, NAN}, Shape{3});
  EXPECT_NO_THROW(a.assert_approx_eq(b));
  EXPECT_THROW(a.assert_eq(b), AssertionError);
  EXPECT_THROW(a.assert_eq(a.convert(DType::F64)), AssertionError);
  EXPECT_NO_THROW(a.assert_eq(a.convert(DType::F64), false));
  TensorData c(std::vector<float>{1.f, 2.1f, NAN}, Shape{3});
  EXPECT_THROW(a.assert_approx_eq(c, Tolerance::rel_abs(1e-3, 1e-3)), AssertionError);
  EXPECT_NO_THROW(a.assert_approx_eq(c, Tolerance::rel_abs(0.1, 0.1)));
  EXPECT_THROW(a.assert_approx_eq(TensorData(std::vector<float>{1.f}, Shape{1})), AssertionError);
}

TEST(TensorData, FloatToIntSaturatesAndMapsNanToZero) {
  TensorData d(std::vector<double>{1e30, -1e30, NAN, -3.9}, Shape{4});
  EXPECT_EQ(d.convert(DType::I8).to_vector<int64_t>(), (std::vector<int64_t>{127, -128, 0, -3}));
  EXPECT_EQ(d.convert(DType::I64).to_vector<int64_t>()[0], INT64_MAX);
  EXPECT_EQ(d.convert(DType::U8).to_vector<int64_t>(), (std::vector<int64_t>{255, 0, 0, 0}));
}

TEST(TensorData, FullAndScalars) {
  auto d = TensorData::full(Shape{2}, Scalar(7), DType::I16);
  EXPECT_EQ(d.to_vector<int64_t>(), (std::vector<int64_t>{7, 7}));
  EXPECT_EQ(d.scalar_at(1).to_int(), 7);
  EXPECT_EQ(d.scalar_at(0).kind(), Scalar::Kind::Int);
}

}  // namespace
}  // namespace scorch
