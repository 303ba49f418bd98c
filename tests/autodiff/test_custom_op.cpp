// The backend-extension example: a custom Cpu kernel with a hand-written backward gives the
// same values and gradients as the composition of built-in ops.
#include <gtest/gtest.h>

#include "custom_op/fused_matmul_add_relu.h"

namespace scorch {
namespace {

using AD = Autodiff<Cpu>;
using T2 = Tensor<AD, 2>;

TEST(CustomOp, CpuKernelMatchesComposition) {
  auto x = Tensor<Cpu, 2>::random({5, 7}, Distribution::Default);
  auto w = Tensor<Cpu, 2>::random({7, 4}, Distribution::normal(0, 1));
  auto b = Tensor<Cpu, 2>::random({1, 4}, Distribution::normal(0, 1));
  auto fused = custom::fused_matmul_add_relu(x, w, b);
  auto reference = activation::relu(x.matmul(w) + b);
  fused.to_data().assert_approx_eq(reference.to_data(), Tolerance::rel_abs(1e-6, 1e-6));
}

TEST(CustomOp, BackwardMatchesComposition) {
  auto x = T2::random({6, 5}, Distribution::Default).require_grad();
  auto w = T2::random({5, 3}, Distribution::normal(0, 1)).require_grad();
  auto b = T2::random({1, 3}, Distribution::normal(0, 1)).require_grad();
  auto weights = T2::random({6, 3}, Distribution::Default);
  auto fused = custom::fused_matmul_add_relu(x, w, b);
  auto g1 = (fused * weights).sum().backward();
  auto g2 = (activation::relu(x.matmul(w) + b) * weights).sum().backward();
  for (const auto* t : {&x, &w, &b})
    t->grad(g1)->to_data().assert_approx_eq(t->grad(g2)->to_data(), Tolerance::rel_abs(1e-5, 1e-6));
}

TEST(CustomOp, UntrackedInputsRecordNothingAndBadBiasIsRejected) {
  int64_t before = autodiff::live_nodes();
  auto y = custom::fused_matmul_add_relu(T2::ones({2, 3}), T2::ones({3, 4}), T2::ones({1, 4}));
  EXPECT_EQ(autodiff::live_nodes(), before);
  EXPECT_EQ(y.to_data().to_vector<float>()[0], 4.f);
  EXPECT_THROW(custom::fused_matmul_add_relu(T2::ones({2, 3}), T2::ones({3, 4}), T2::ones({1, 5})), ShapeError);
}

}  // namespace
}  // namespace scorch
