#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "scorch/core/dtype.h"
#include "scorch/core/error.h"

namespace scorch {
namespace {

TEST(DType, NamesSizesAndKinds) {
  EXPECT_EQ(dtype_name(DType::BF16), "bf16");
  EXPECT_EQ(dtype_from_name("i16"), DType::I16);
  EXPECT_THROW(dtype_from_name("f8"), DTypeError);
  EXPECT_EQ(dtype_size(DType::F64), 8u);
  EXPECT_EQ(dtype_size(DType::Bool), 1u);
  EXPECT_TRUE(is_float(DType::F16));
  EXPECT_TRUE(is_int(DType::U8));
  EXPECT_FALSE(is_int(DType::Bool));
}

TEST(Half, F16RoundsToNearestEven) {
  EXPECT_EQ(f32_to_f16_bits(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16_bits(65504.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16_bits(65520.0f), 0x7c00);         // rounds up to inf
  EXPECT_EQ(f32_to_f16_bits(1.0f + 0x1p-11f), 0x3c00);  // tie goes to even
  EXPECT_EQ(f32_to_f16_bits(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(f16_bits_to_f32(0x0001), 0x1p-24f);  // smallest subnormal
  EXPECT_EQ(f32_to_f16_bits(0x1p-24f), 0x0001);
  EXPECT_TRUE(std::isnan(f16_bits_to_f32(f32_to_f16_bits(NAN))));
  for (uint32_t b = 0; b < 0x7c00; ++b) EXPECT_EQ(f32_to_f16_bits(f16_bits_to_f32(static_cast<uint16_t>(b))), b);
}

TEST(Half, Bf16RoundsToNearestEven) {
  EXPECT_EQ(f32_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits_to_f32(f32_to_bf16_bits(3.140625f)), 3.140625f);
  EXPECT_EQ(f32_to_bf16_bits(1.0f + 0x1p-8f), 0x3f80);  // tie to even
  EXPECT_EQ(f32_to_bf16_bits(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_bits_to_f32(f32_to_bf16_bits(NAN))));
}

}  // namespace
}  // namespace scorch
