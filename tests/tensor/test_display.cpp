#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <random>
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

// The printf fallback (for a standard library without floating-point to_chars, as emscripten's) writes what
// std::to_chars writes: known texts everywhere, and 40,000 random values against to_chars where it exists.
TEST(Display, ShortestByPrintfMatchesToChars) {
  struct Known {
    double value;
    bool f64;
    const char* text;
  };
  for (auto [value, f64, text] : std::vector<Known>{{0.0, true, "0"},
                                                    {-0.0, false, "-0"},
                                                    {100.0, false, "100"},
                                                    {0.1, false, "0.1"},
                                                    {0.1, true, "0.1"},
                                                    {1e30, false, "1e+30"},
                                                    {123456792.0, false, "123456792"},
                                                    {5e-324, true, "5e-324"},
                                                    {1e-7, true, "1e-07"},
                                                    {12345.678, true, "12345.678"}})
    EXPECT_EQ(detail::shortest_by_printf(value, f64), text) << value;
#if defined(__cpp_lib_to_chars)
  std::mt19937_64 bits(11);
  for (int i = 0; i < 20000; ++i) {
    uint64_t b = bits();
    double v = i % 2 ? scorch::bit_cast<double>(b) : double(scorch::bit_cast<float>(uint32_t(b)));
    if (!std::isfinite(v)) continue;
    char buf[64];
    auto f64 = std::to_chars(buf, buf + sizeof buf, v);
    EXPECT_EQ(detail::shortest_by_printf(v, true), std::string(buf, f64.ptr)) << "double " << buf;
    if (std::isfinite(float(v))) {
      auto f32 = std::to_chars(buf, buf + sizeof buf, float(v));
      EXPECT_EQ(detail::shortest_by_printf(v, false), std::string(buf, f32.ptr)) << "float " << buf;
    }
  }
#endif
}

}  // namespace
}  // namespace scorch
