// NamedTensor: names follow matmul, swaps and renames; mismatched names do not compile; values are Tensor's.
#include <gtest/gtest.h>

#include <sstream>

#include <scorch/scorch.hpp>
#include <scorch/tensor/named.h>

using namespace scorch;

namespace {

SCORCH_NAMED_DIM(Batch);
SCORCH_NAMED_DIM(SeqLength);
SCORCH_NAMED_DIM(DModel);
SCORCH_NAMED_DIM(Heads);

template <class L, class R>
concept Multipliable = requires(const L& l, const R& r) {
  l.matmul(r);
};
template <class L, class R>
concept Elementwise = requires(const L& l, const R& r) {
  l + r;
  l - r;
  l* r;
};
template <class T, class Dim>
concept Sized = requires(const T& t) {
  t.template size<Dim>();
};
template <class T, class First, class Second>
concept Swappable = requires(const T& t) {
  t.template swap_dims<First, Second>();
};

using Input = NamedTensor<Cpu, Batch, SeqLength, DModel>;
using Weights = NamedTensor<Cpu, Batch, DModel, DModel>;

// The compiler refuses what the names forbid.
static_assert(Multipliable<Input, Weights>);
static_assert(!Multipliable<Weights, Input>);                                      // DModel · SeqLength
static_assert(!Multipliable<Input, NamedTensor<Cpu, Heads, DModel, DModel>>);      // Batch against Heads
static_assert(!Multipliable<NamedTensor<Cpu, DModel>, NamedTensor<Cpu, DModel>>);  // rank 1
static_assert(Elementwise<Input, Input>);
static_assert(!Elementwise<Input, NamedTensor<Cpu, Batch, DModel, SeqLength>>);
static_assert(Sized<Input, DModel> && !Sized<Input, Heads>);  // a dim the tensor does not name
static_assert(!Sized<Weights, DModel>);                       // a dim named twice has no single size
static_assert(Swappable<Input, Batch, DModel> && !Swappable<Input, Batch, Heads>);
static_assert(std::is_same_v<decltype(std::declval<Input>().matmul(std::declval<Weights>())), Input>);
static_assert(
    std::is_same_v<decltype(std::declval<Input>().swap_dims<1, 2>()), NamedTensor<Cpu, Batch, DModel, SeqLength>>);
static_assert(std::is_same_v<decltype(std::declval<Input>().swap_dims<SeqLength, DModel>()),
                             NamedTensor<Cpu, Batch, DModel, SeqLength>>);
static_assert(
    std::is_same_v<decltype(std::declval<Input>().rename<SeqLength, Heads>()), NamedTensor<Cpu, Batch, Heads, DModel>>);
static_assert(Input::index_of<DModel>() == 2 && Input::index_of<Batch>() == 0);

}  // namespace

TEST(NamedTensor, MatmulAndSwapsGiveTheUnnamedValues) {
  Cpu::seed(3);
  auto input = Input::random({2, 5, 4}, Distribution::normal(0, 1));
  auto weights = Weights::random({2, 4, 4}, Distribution::normal(0, 1));
  auto output = input.matmul(weights);
  auto expected = input.tensor().matmul(weights.tensor());
  output.tensor().to_data().assert_approx_eq(expected.to_data(), Tolerance::rel_abs(1e-6, 1e-6));
  auto swapped = input.swap_dims<SeqLength, DModel>();
  swapped.tensor().to_data().assert_eq(input.tensor().swap_dims(1, 2).to_data());
  EXPECT_EQ(swapped.size<SeqLength>(), 5u);
  EXPECT_EQ(swapped.size<DModel>(), 4u);
  auto sum = (output + input) * 2.0 - input;
  sum.tensor().to_data().assert_approx_eq((expected * 2.0 + input.tensor()).to_data(), Tolerance::rel_abs(1e-5, 1e-5));
}

TEST(NamedTensor, PrintsNamesAndSizes) {
  auto x = Input::zeros({3, 10, 8});
  EXPECT_EQ(x.to_string(), "NamedTensor[Batch: 3, SeqLength: 10, DModel: 8]");
  std::ostringstream out;
  out << x.rename<SeqLength, Heads>();
  EXPECT_EQ(out.str(), "NamedTensor[Batch: 3, Heads: 10, DModel: 8]");
}

TEST(NamedTensor, SizesThatDisagreeStillThrowAtRunTime) {
  auto input = Input::zeros({2, 5, 4});
  auto weights = Weights::zeros({2, 3, 3});  // DModel 3 against 4: the names agree, the sizes do not
  EXPECT_THROW((void)input.matmul(weights), ShapeError);
}
