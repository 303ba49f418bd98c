// Tensor API behaviour the fixtures do not show: seeding, ownership and in-place reuse, ranks.
#include <gtest/gtest.h>

#include <scorch/scorch.hpp>

namespace scorch {
namespace {
using B = Cpu;
using T2 = Tensor<B, 2>;

TEST(TensorApi, SeedMakesRandomReproducible) {
  B::seed(123);
  auto a = T2::random({4, 5}, Distribution::normal(0, 1));
  auto b = T2::random({4, 5}, Distribution::Default);
  B::seed(123);
  a.to_data().assert_eq(T2::random({4, 5}, Distribution::normal(0, 1)).to_data());
  b.to_data().assert_eq(T2::random({4, 5}, Distribution::Default).to_data());
  EXPECT_FALSE(a.to_data() == b.to_data());
  auto u = T2::random({100, 100}, Distribution::uniform(-2, -1)).to_data().to_vector<float>();
  for (float v : u) ASSERT_TRUE(v >= -2.f && v < -1.f);
  auto ints = Tensor<B, 1, Int>::random({1000}, Distribution::uniform(0, 10)).to_data().to_vector<int64_t>();
  for (int64_t v : ints) ASSERT_TRUE(v >= 0 && v < 10);
}

TEST(TensorApi, TemporariesAreReusedInPlace) {
  auto x = T2::ones({64, 64});
  auto y = x + 1.0;  // x is shared: a new buffer
  EXPECT_NE(x.primitive().storage(), y.primitive().storage());
  const void* buffer = y.primitive().storage().get();
  auto z = std::move(y) * 3.0;  // the only reference: written in place
  EXPECT_EQ(z.primitive().storage().get(), buffer);
  auto w = std::move(z).exp();
  EXPECT_EQ(w.primitive().storage().get(), buffer);
  EXPECT_FLOAT_EQ(w.to_data().to_vector<float>()[0], std::exp(6.f));
  EXPECT_FLOAT_EQ(x.to_data().to_vector<float>()[0], 1.f);  // the shared input never changed
}

TEST(TensorApi, ViewsShareStorageAndCopiesDoNot) {
  auto x = T2::from_data({{1., 2., 3.}, {4., 5., 6.}});
  auto t = x.transpose();
  EXPECT_EQ(t.primitive().storage(), x.primitive().storage());
  auto changed = x.slice_assign({Slice(0, 1), Slice(0, 1)}, T2::full({1, 1}, 9.0));
  EXPECT_FLOAT_EQ(x.to_data().to_vector<float>()[0], 1.f);  // x had other owners: copied first
  EXPECT_FLOAT_EQ(changed.to_data().to_vector<float>()[0], 9.f);
  EXPECT_FLOAT_EQ(t.to_data().to_vector<float>()[1], 4.f);
}

TEST(TensorApi, DimsScalarsAndReshapeInference) {
  auto x = Tensor<B, 3>::zeros({2, 3, 4});
  auto [b, h, w] = x.dims();
  EXPECT_EQ(b * h * w, 24u);
  auto y = x.reshape<2>({b, -1});
  EXPECT_EQ(y.shape(), (Shape{2, 12}));
  EXPECT_EQ((x.reshape<3>({0, 0, -1}).shape()), x.shape());
  EXPECT_EQ((x.reshape<2>(Shape{4, 6}).shape()), (Shape{4, 6}));
  EXPECT_EQ((Tensor<B, 1>::from_data({2.5}).into_scalar().to_double()), 2.5);
  EXPECT_EQ(x.sum().into_scalar().to_double(), 0.0);
  EXPECT_EQ((Tensor<B, 1, Int>::from_data({3, 4}).sum().into_scalar().to_int()), 7);
}

TEST(TensorApi, MinMaxNormalizationFromTheBook) {
  auto input = Tensor<B, 1>::from_floats({1.0, 2.0, 3.0, 4.0});
  auto min = input.min();
  auto max = input.max();
  auto out = (input - min.expand<1>({4})).div((max - min).expand<1>({4}));
  out.to_data().assert_approx_eq(TensorData(std::vector<float>{0.f, 1.f / 3, 2.f / 3, 1.f}, Shape{4}));
}

TEST(TensorApi, HalfPrecisionKeepsItsDtype) {
  auto x = Tensor<B, 2>::from_data({{1., 2.}, {3., 4.}}).cast(DType::F16);
  auto y = (x * 2.0).exp().sum_dim(1);
  EXPECT_EQ(y.dtype(), DType::F16);
  EXPECT_NEAR(y.to_data().to_vector<float>()[0], std::exp(2.f) + std::exp(4.f), 0.1);
  auto m = x.matmul(x);
  EXPECT_EQ(m.dtype(), DType::F16);
  EXPECT_EQ(m.to_data().to_vector<float>(), (std::vector<float>{7, 10, 15, 22}));
}

TEST(TensorApi, StackSplitAndIterDim) {
  auto x = T2::from_data({{1., 2.}, {3., 4.}, {5., 6.}});
  auto parts = x.split(2, 0);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].shape(), (Shape{1, 2}));
  EXPECT_EQ(x.iter_dim(1).size(), 2u);
  auto s = T2::stack<3>({x, x}, 0);
  EXPECT_EQ(s.shape(), (Shape{2, 3, 2}));
  auto mask = Tensor<B, 2, Bool>::tril_mask({3, 3}, 0);
  EXPECT_EQ(mask.to_data().to_vector<bool>(),
            (std::vector<bool>{false, true, true, false, false, true, false, false, false}));
}

}  // namespace
}  // namespace scorch
