// Bad input throws a scorch::Error subclass whose message starts with the op; nothing aborts.
#include <gtest/gtest.h>

#include "support/expect_error.h"

#include <scorch/scorch.hpp>

namespace scorch {
namespace {
using B = Cpu;
using T2 = Tensor<B, 2>;

using testing::expect_error;

TEST(Errors, ShapesAreNamed) {
  auto a = T2::zeros({2, 3}), b = T2::zeros({4, 5});
  expect_error<ShapeError>([&] { a.matmul(b); }, "[matmul] lhs [2, 3] and rhs [4, 5]: inner dims differ (3 vs 4)");
  expect_error<ShapeError>([&] { a + T2::zeros({3, 3}); }, "[add] lhs [2, 3] and rhs [3, 3]");
  expect_error<ShapeError>([&] { a.reshape<2>({4, 4}); }, "[reshape] cannot reshape [2, 3]");
  expect_error<ShapeError>([&] { a.reshape<2>({-1, -1}); }, "[reshape] only one dim may be -1");
  expect_error<ShapeError>([&] { a.sum_dim(2); }, "[sum_dim] dim 2 is out of range for rank 2");
  expect_error<ShapeError>([&] { a.squeeze(0); }, "[squeeze] dim 0 of [2, 3] has size 2");
  expect_error<ShapeError>([&] { T2::cat({a, b}, 0); }, "[cat] tensor 1 has shape [4, 5]");
  expect_error<ShapeError>([&] { a.slice_assign({Slice(0, 1)}, T2::zeros({2, 2})); }, "[slice_assign] values [2, 2]");
  expect_error<ShapeError>([&] { T2::from_data({{1., 2.}, {3.}}); }, "[from_data] ragged literal");
  expect_error<ShapeError>([&] { T2::from_data(TensorData(std::vector<float>{1.f}, Shape{1})); },
                           "[from_data] shape [1] has rank 1");
  expect_error<ShapeError>([&] { a.narrow(1, 2, 2); }, "[narrow] start 2 + length 2 exceeds");
  expect_error<ShapeError>([&] { a.expand<2>({4, 3}); }, "[expand] cannot expand [2, 3]");
  expect_error<ShapeError>([&] { T2::zeros({2, 2, 2}); }, "[full] shape [2, 2, 2] has rank 3");
}

TEST(Errors, DTypesAndValues) {
  auto a = T2::zeros({2, 2});
  expect_error<DTypeError>([&] { a + a.cast(DType::F64); }, "[add] lhs f32 and rhs f64: dtypes differ");
  expect_error<DTypeError>([&] { a.cast(DType::I32); }, "[cast] data of dtype i32 cannot make a Float tensor");
  auto i = Tensor<B, 1, Int>::from_data({4, 2});
  expect_error<ValueError>([&] { i / Tensor<B, 1, Int>::from_data({1, 0}); }, "[div] integer division by zero");
  expect_error<ValueError>([&] { i % 0; }, "[remainder_scalar] integer division by zero");
  expect_error<ValueError>([&] { a.slice({Slice(0, 2, 0)}); }, "[slice] slice step is 0");
  expect_error<ValueError>([&] { a.clamp(1.0, 0.0); }, "[clamp] min");
  expect_error<ValueError>([&] { activation::hardtanh(a, 1.0, -1.0); }, "[hardtanh] min");
  expect_error<ShapeError>([&] { T2::zeros({2, 0}).max_dim(1); }, "[max_dim] dim 1 of [2, 0] is empty");
  expect_error<ValueError>([&] { Tensor<B, 2, Int>::zeros({0, 2}).mean(); }, "[mean_dim] dim 0 of [0] is empty");
  expect_error<ValueError>(
      [&] {
        Tensor<B, 1, Int>::from_data({0, 5}).one_hot(3);
      },
      "[one_hot] a class index is outside [0, 3)");
  expect_error<ShapeError>([&] { a.into_scalar(); }, "[into_scalar]");
}

TEST(Errors, IndicesOutOfRange) {
  auto a = T2::zeros({2, 3});
  expect_error<ShapeError>(
      [&] {
        a.select(1, Tensor<B, 1, Int>::from_data({0, 3}));
      },
      "[select] index 3 is out of range for a dim of size 3");
  expect_error<ShapeError>(
      [&] {
        a.gather(0, Tensor<B, 2, Int>::from_data({{2, 0, 0}}));
      },
      "[gather] index 2 is out of range");
  expect_error<ShapeError>(
      [&] {
        a.gather(0, Tensor<B, 2, Int>::zeros({1, 4}));
      },
      "[gather] indices [1, 4] exceed data [2, 3] at dim 1");
  expect_error<ShapeError>(
      [&] {
        a.scatter(1, Tensor<B, 2, Int>::zeros({2, 2}), T2::zeros({2, 3}));
      },
      "[scatter] values [2, 3]");
}

// Kinds restrict methods at compile time.
template <class T>
concept HasExp = requires(T t) {
  t.exp();
};
template <class T>
concept HasAdd = requires(T t) {
  t + t;
};
static_assert(HasExp<Tensor<B, 2>>);
static_assert(!HasExp<Tensor<B, 2, Bool>>);
static_assert(!HasExp<Tensor<B, 2, Int>>);
static_assert(HasAdd<Tensor<B, 2, Int>>);
static_assert(!HasAdd<Tensor<B, 2, Bool>>);
static_assert(!AutodiffBackend<Cpu>);

}  // namespace
}  // namespace scorch
