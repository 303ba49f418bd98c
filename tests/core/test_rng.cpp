#include <gtest/gtest.h>

#include <cmath>

#include "scorch/core/rng.h"

namespace scorch {
namespace {

// Moments of 200k draws are within a few standard errors of the distribution's.
TEST(Rng, DistributionsHaveTheRightMoments) {
  const uint64_t n = 200000, key = mix64(42);
  auto moments = [&](Distribution d) {
    double s = 0, s2 = 0;
    for (uint64_t i = 0; i < n; ++i) {
      double v = sample(d, key, 0, i);
      s += v;
      s2 += v * v;
    }
    double mean = s / n;
    return std::pair{mean, s2 / n - mean * mean};
  };
  auto [um, uv] = moments(Distribution::uniform(-1, 3));
  EXPECT_NEAR(um, 1.0, 0.02);
  EXPECT_NEAR(uv, 16.0 / 12.0, 0.02);
  auto [nm, nv] = moments(Distribution::normal(2, 0.5));
  EXPECT_NEAR(nm, 2.0, 0.01);
  EXPECT_NEAR(nv, 0.25, 0.01);
  auto [bm, bv] = moments(Distribution::bernoulli(0.3));
  EXPECT_NEAR(bm, 0.3, 0.01);
}

TEST(Rng, SeedReproducesAndCountersAdvance) {
  CounterRng a(7), b(7);
  EXPECT_EQ(a.key(), b.key());
  EXPECT_EQ(a.reserve(10), 0u);
  EXPECT_EQ(a.reserve(10), 10u);
  a.seed_to(7);
  EXPECT_EQ(a.reserve(1), 0u);
  EXPECT_NE(CounterRng(8).key(), a.key());
  for (uint64_t i = 0; i < 1000; ++i) {
    double u = uniform01(a.key(), i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace scorch
