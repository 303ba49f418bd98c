// Cpu backend internals: the thread pool and the strided/broadcast paths on large inputs.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>

#include <scorch/scorch.hpp>

namespace scorch {
namespace {
using B = Cpu;
namespace cpu = backends::cpu;

TEST(ThreadPool, CoversEveryIndexOnceAndRethrows) {
  std::vector<std::atomic<int>> hits(100000);
  cpu::parallel_for(hits.size(), 1000, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) hits[i]++;
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_THROW(cpu::parallel_for(1 << 20, 1,
                                 [](size_t b, size_t) {
                                   if (b > 0) throw ValueError("test", "boom");
                                 }),
               ValueError);
  cpu::parallel_for(10, 1, [](size_t, size_t) {});  // still usable afterwards
}

TEST(ThreadPool, ResultsDoNotDependOnThreadCount) {
  B::seed(5);
  auto x = Tensor<B, 2>::random({300, 700}, Distribution::normal(0, 1));
  auto run = [&] { return (x.transpose().exp() + x.transpose().slice({Slice(0, 1)})).sum_dim(1).to_data(); };
  auto threaded = run();
  size_t n = cpu::num_threads();
  cpu::set_num_threads(1);
  auto serial = run();
  cpu::set_num_threads(n);
  threaded.assert_eq(serial);
}

TEST(CpuKernels, LargeBroadcastMatchesNaiveLoop) {
  B::seed(9);
  auto a = Tensor<B, 3>::random({8, 1, 5000}, Distribution::Default);
  auto b = Tensor<B, 3>::random({1, 7, 1}, Distribution::Default);
  auto c = (a * b).to_data().to_vector<float>();
  auto av = a.to_data().to_vector<float>(), bv = b.to_data().to_vector<float>();
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 7; ++j)
      for (size_t k = 0; k < 5000; k += 997) ASSERT_EQ(c[(i * 7 + j) * 5000 + k], av[i * 5000 + k] * bv[j]);
}

TEST(CpuKernels, OneLongRowWithABroadcastScalarIsSplitAcrossThreadsAndMatches) {
  // [3, 70000] with a scalar collapses to one row of 210,000: split into pieces, one per thread.
  B::seed(10);
  auto a = Tensor<B, 2>::random({3, 70000}, Distribution::Default);
  auto s = Tensor<B, 2>::from_data({{2.5f}});
  auto av = a.to_data().to_vector<float>();
  auto scaled = (a / s).to_data().to_vector<float>(), flipped = (s - a).to_data().to_vector<float>();
  for (size_t i = 0; i < av.size(); i += 1009) {
    ASSERT_EQ(scaled[i], av[i] / 2.5f);
    ASSERT_EQ(flipped[i], 2.5f - av[i]);
  }
  ASSERT_EQ(scaled.back(), av.back() / 2.5f);
}

TEST(CpuKernels, MaskWhereCopiesEveryDtypeWidthWithBroadcasts) {
  B::seed(11);
  auto x = Tensor<B, 3>::random({4, 3, 50}, Distribution::Default);
  auto mask = Tensor<B, 3>::random({4, 1, 50}, Distribution::Default).greater_elem(0.5);
  auto values = Tensor<B, 3>::random({1, 3, 1}, Distribution::Default);
  auto mv = mask.to_data().to_vector<bool>();
  auto check = [&](const auto& xd, const auto& vd, std::string_view what) {
    auto got = xd.mask_where(mask, vd).to_data().template to_vector<double>();
    auto xv = xd.to_data().template to_vector<double>(), vv = vd.to_data().template to_vector<double>();
    for (size_t i = 0; i < 4; ++i)
      for (size_t j = 0; j < 3; ++j)
        for (size_t k = 0; k < 50; ++k)
          ASSERT_EQ(got[(i * 3 + j) * 50 + k], mv[i * 50 + k] ? vv[j] : xv[(i * 3 + j) * 50 + k]) << what;
  };
  for (DType d : {DType::F64, DType::F32, DType::F16}) check(x.cast(d), values.cast(d), dtype_name(d));
  check((x * 100.0).int_().cast(DType::I8), (values * 100.0).int_().cast(DType::I8), "i8");
}

TEST(CpuKernels, IntegerArithmeticWrapsInsteadOfOverflowing) {
  auto x = Tensor<B, 1, Int>::from_data({INT64_MAX, INT64_MIN}).cast(DType::I64);
  auto y = (x + 1).to_data().to_vector<int64_t>();
  EXPECT_EQ(y[0], INT64_MIN);
  EXPECT_EQ(x.abs().to_data().to_vector<int64_t>()[1], INT64_MIN);
  auto small = Tensor<B, 1, Int>::from_data({100}).cast(DType::I8);
  EXPECT_EQ((small * 3).to_data().to_vector<int64_t>()[0], static_cast<int8_t>(300));
}

}  // namespace
}  // namespace scorch
