// Zero-size tensors through layers and their backward passes (issue 21): a batch of 0 gives an empty
// output and zero gradients for the parameters, as in PyTorch; shape ops on empty tensors keep their
// zero dims (internal reshapes never use the user-facing "0 keeps the dim" rule).
#include <gtest/gtest.h>

#include <cmath>

#include <scorch/scorch.hpp>

namespace scorch::nntest {
namespace {

using AD = Autodiff<Cpu>;

/// Every value of t is zero.
template <class T> bool all_zero(const T& t) {
  auto d = t.to_data().convert(DType::F64).template to_vector<double>();
  return std::all_of(d.begin(), d.end(), [](double v) { return v == 0.0; });
}

TEST(ZeroSize, LinearWithBatchZeroHasZeroParameterGradients) {
  auto linear = nn::LinearConfig(3, 4).init<AD>();
  auto x = Tensor<AD, 2>::zeros({0, 3}).require_grad();
  auto y = linear.forward(x);
  EXPECT_EQ(y.shape(), Shape({0, 4}));
  auto grads = y.sum().backward();
  auto gw = linear.weight.val().grad(grads);
  auto gb = linear.bias->val().grad(grads);
  auto gx = x.grad(grads);
  ASSERT_TRUE(gw && gb && gx);
  EXPECT_EQ(gw->shape(), Shape({3, 4}));
  EXPECT_TRUE(all_zero(*gw));
  EXPECT_EQ(gb->shape(), Shape({4}));
  EXPECT_TRUE(all_zero(*gb));
  EXPECT_EQ(gx->shape(), Shape({0, 3}));
}

TEST(ZeroSize, LinearWithZeroInputFeaturesGivesTheBias) {
  auto linear = nn::LinearConfig(0, 2).with_initializer(nn::Initializer::constant(0.5)).init<Cpu>();
  auto y = linear.forward(Tensor<Cpu, 2>::zeros({3, 0}));
  EXPECT_EQ(y.shape(), Shape({3, 2}));
  y.to_data().assert_approx_eq(linear.bias->val().template unsqueeze<2>().expand_to({3, 2}).to_data());
}

TEST(ZeroSize, PReluOnEmptyInputHasAZeroSlopeGradient) {
  auto prelu = nn::PReluConfig().with_num_parameters(3).init<AD>();
  auto x = Tensor<AD, 3>::zeros({0, 3, 5}).require_grad();
  auto y = prelu.forward(x);
  EXPECT_EQ(y.shape(), Shape({0, 3, 5}));
  auto grads = y.sum().backward();
  auto ga = prelu.alpha.val().grad(grads);
  ASSERT_TRUE(ga);
  EXPECT_EQ(ga->shape(), Shape({3}));
  EXPECT_TRUE(all_zero(*ga));
}

TEST(ZeroSize, RepeatWithACountOfZero) {
  auto x = Tensor<AD, 2>::ones({2, 3}).require_grad();
  auto y = x.repeat({0, 2});
  EXPECT_EQ(y.shape(), Shape({0, 6}));
  auto grads = y.sum().backward();
  auto gx = x.grad(grads);
  ASSERT_TRUE(gx);
  EXPECT_EQ(gx->shape(), Shape({2, 3}));
  EXPECT_TRUE(all_zero(*gx));
}

TEST(ZeroSize, ShapeOpsKeepZeroDims) {
  auto x = Tensor<AD, 3>::zeros({2, 0, 3}).require_grad();
  EXPECT_EQ(x.unsqueeze_dim(0).shape(), Shape({1, 2, 0, 3}));
  EXPECT_EQ(x.unsqueeze_dim(-1).shape(), Shape({2, 0, 3, 1}));
  EXPECT_EQ(x.template flatten<2>(0, 1).shape(), Shape({0, 3}));
  EXPECT_EQ(x.template flatten<1>(0, 2).shape(), Shape({0}));
  auto reshaped = x.template reshape<2>(Shape({0, 6}));
  EXPECT_EQ(reshaped.shape(), Shape({0, 6}));
  EXPECT_EQ(x.template reshape<2>(Shape({0, 6})).shape(), Shape({0, 6}));
  auto kept = x.template reshape<2>({0, -1});  // a literal 0 keeps dim 0 (2)
  EXPECT_EQ(kept.shape(), Shape({2, 0}));
  auto chunks = x.chunk(2, 1);
  ASSERT_EQ(chunks.size(), 2u);  // as PyTorch: each chunk of an empty dim is empty
  EXPECT_EQ(chunks[1].shape(), Shape({2, 0, 3}));
  auto grads = Tensor<AD, 3>::stack({x, x}, 1).sum().backward();
  ASSERT_TRUE(x.grad(grads));
  EXPECT_EQ(x.grad(grads)->shape(), Shape({2, 0, 3}));
}

TEST(ZeroSize, PixelShuffleAndUnshuffleOfABatchOfZero) {
  auto up = nn::PixelShuffle{2}.forward(Tensor<Cpu, 4>::zeros({0, 8, 3, 3}));
  EXPECT_EQ(up.shape(), Shape({0, 2, 6, 6}));
  auto down = nn::PixelUnshuffle{2}.forward(up);
  EXPECT_EQ(down.shape(), Shape({0, 8, 3, 3}));
}

TEST(ZeroSize, ConvolutionWithBatchZeroHasZeroParameterGradients) {
  auto conv = nn::Conv2dConfig({3, 4}, {3, 3}).init<AD>();
  auto x = Tensor<AD, 4>::zeros({0, 3, 8, 8}).require_grad();
  auto y = conv.forward(x);
  EXPECT_EQ(y.shape(), Shape({0, 4, 6, 6}));
  auto grads = y.sum().backward();
  auto gw = conv.weight.val().grad(grads);
  ASSERT_TRUE(gw);
  EXPECT_EQ(gw->shape(), Shape({4, 3, 3, 3}));
  EXPECT_TRUE(all_zero(*gw));
}

TEST(ZeroSize, NormsOfABatchOfZero) {
  auto layer_norm = nn::LayerNormConfig(4).init<AD>();
  auto x = Tensor<AD, 2>::zeros({0, 4}).require_grad();
  auto grads = layer_norm.forward(x).sum().backward();
  ASSERT_TRUE(layer_norm.gamma.val().grad(grads));
  EXPECT_TRUE(all_zero(*layer_norm.gamma.val().grad(grads)));
  auto group_norm = nn::GroupNormConfig(2, 4).init<Cpu>();
  EXPECT_EQ(group_norm.forward(Tensor<Cpu, 3>::zeros({0, 4, 5})).shape(), Shape({0, 4, 5}));
}

TEST(ZeroSize, ReductionsOfEmptyDimsFollowPyTorch) {
  auto x = Tensor<Cpu, 2>::zeros({3, 0});
  x.sum_dim(1).to_data().assert_eq(TensorData::full(Shape({3, 1}), Scalar(0.0), DType::F32));
  x.prod_dim(1).to_data().assert_eq(TensorData::full(Shape({3, 1}), Scalar(1.0), DType::F32));
  EXPECT_TRUE(std::isnan(x.mean_dim(1).to_data().value_at(0)));
  EXPECT_TRUE(std::isnan(x.mean().into_scalar().to_double()));
  EXPECT_TRUE(std::isnan(x.var(1).to_data().value_at(0)));
  EXPECT_EQ(x.sum_dim(0).shape(), Shape({1, 0}));
  EXPECT_THROW(x.max_dim(1), ShapeError);
  EXPECT_THROW(x.argmin(1), ShapeError);
  EXPECT_THROW(x.max(), ShapeError);
  auto empty_ints = Tensor<Cpu, 2, Int>::zeros({2, 0});
  EXPECT_THROW(empty_ints.mean_dim(1), ValueError);
  Tensor<Cpu, 2, Int>::zeros({2, 0}).sum_dim(1).to_data().assert_eq(
      TensorData::full(Shape({2, 1}), Scalar(0), DType::I64));
}

TEST(ZeroSize, CrossEntropyOfABatchOfZeroIsNaN) {
  auto loss = nn::CrossEntropyLossConfig().init<AD>();
  auto logits = Tensor<AD, 2>::zeros({0, 5}).require_grad();
  auto value = loss.forward(logits, Tensor<AD, 1, Int>::zeros({0}));
  EXPECT_TRUE(std::isnan(value.into_scalar().to_double()));  // PyTorch's mean over no targets
}

}  // namespace
}  // namespace scorch::nntest
