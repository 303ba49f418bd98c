#include <gtest/gtest.h>

#include <sstream>

#include <scorch/scorch.hpp>

namespace scorch {
namespace {
using B = Cpu;

template <class T> std::string show(const T& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}

TEST(Display, MatchesTheBook) {
  auto t1 = Tensor<B, 2>::from_data({{2., 3.}, {4., 5.}});
  auto t2 = Tensor<B, 2>::ones_like(t1);
  EXPECT_EQ(show(t1 + t2),
            "Tensor {\n  data:\n[[3.0, 4.0],\n [5.0, 6.0]],\n  shape:  [2, 2],\n  device:  Cpu,\n  backend:  \"cpu\",\n"
            "  kind:  \"Float\",\n  dtype:  \"f32\",\n}");
}

TEST(Display, KindsAndValues) {
  EXPECT_NE(show(Tensor<B, 1, Int>::from_data({1, -2})).find("[1, -2]"), std::string::npos);
  EXPECT_NE(show(Tensor<B, 1, Int>::from_data({1})).find("kind:  \"Int\",\n  dtype:  \"i64\""), std::string::npos);
  EXPECT_NE(show(Tensor<B, 1, Bool>::from_data({true, false})).find("[true, false]"), std::string::npos);
  EXPECT_NE(show(Tensor<B, 1>::from_data({0.1, 1e-8, NAN})).find("[0.1, 1e-08, NaN]"), std::string::npos);
}

TEST(Display, ElidesLargeTensorsAndHonoursPrecision) {
  auto big = Tensor<B, 1, Int>::arange(0, 2000);
  std::string s = show(big);
  EXPECT_NE(s.find("[0, 1, 2, ..., 1997, 1998, 1999]"), std::string::npos) << s;
  auto m = Tensor<B, 2>::zeros({40, 40});
  std::string sm = show(m);
  EXPECT_NE(sm.find("...,\n"), std::string::npos);
  PrintOptions opts;
  opts.precision = 2;
  set_print_options(opts);
  EXPECT_NE(show(Tensor<B, 1>::from_data({1.23456})).find("[1.23]"), std::string::npos);
  set_print_options(PrintOptions{});
}

}  // namespace
}  // namespace scorch
