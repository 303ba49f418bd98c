// The vectorizable f32 exp/erf against the C library in double over a sweep of every 257th
// float bit pattern (about 17 million values), plus the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "scorch/backends/common/fast_math.h"

namespace scorch::fast_math {
namespace {

float from_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

TEST(VecMath, ExpWithinTwoUlp) {
  double worst = 0;
  for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += 257) {
    float x = from_bits(static_cast<uint32_t>(b));
    if (!std::isfinite(x)) continue;
    double ref = std::exp(static_cast<double>(x));
    float got = exp(x);
    if (ref > std::numeric_limits<float>::max()) {
      ASSERT_TRUE(std::isinf(got) || got >= std::numeric_limits<float>::max() * 0.999f) << x;
      continue;
    }
    float rf = static_cast<float>(ref);
    double ulp = std::max(static_cast<double>(std::nextafter(rf, INFINITY) - rf), 1.4e-45);
    worst = std::max(worst, std::abs(got - ref) / ulp);
  }
  EXPECT_LT(worst, 2.0);
}

TEST(VecMath, ErfWithinFiveTenMillionths) {
  double worst = 0;
  for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += 257) {
    float x = from_bits(static_cast<uint32_t>(b));
    if (!std::isfinite(x) || x == 0) continue;
    double ref = std::erf(static_cast<double>(x));
    if (std::abs(ref) < std::numeric_limits<float>::min()) continue;  // denormal results carry fewer digits
    worst = std::max(worst, std::abs(erf(x) - ref) / std::abs(ref));
  }
  EXPECT_LT(worst, 5e-7);
}

TEST(VecMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(exp(NAN)));
  EXPECT_EQ(exp(inf), inf);
  EXPECT_EQ(exp(-inf), 0.f);
  EXPECT_EQ(exp(0.f), 1.f);
  EXPECT_GT(exp(-100.f), 0.f);  // denormal results survive
  EXPECT_TRUE(std::isnan(erf(NAN)));
  EXPECT_EQ(erf(inf), 1.f);
  EXPECT_EQ(erf(-inf), -1.f);
  EXPECT_EQ(erf(0.f), 0.f);
}

}  // namespace
}  // namespace scorch::fast_math
