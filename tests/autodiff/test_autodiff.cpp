// Autodiff<Cpu> behaviour: the README example, the Tensor API (grad, require_grad, detach,
// inner), errors, Gradients across threads, graph memory and checkpointing.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include <scorch/backends/cpu/host_cache.h>
#include <scorch/scorch.hpp>

#include "support/expect_error.h"

namespace scorch {
namespace {

using AD = Autodiff<Cpu>;
using T2 = Tensor<AD, 2>;
using scorch::testing::expect_error;

// backward() returns gradients on autodiff backends; on Cpu a call is a compile error with a sentence
// (tests/diagnostics/backward_on_plain_backend.cpp).
static_assert(std::is_same_v<decltype(T2().backward()), AD::Gradients>, "backward() exists on Autodiff<Cpu>");
static_assert(std::is_same_v<AD::InnerBackend, Cpu>);
static_assert(std::is_same_v<decltype(T2().inner()), Tensor<Cpu, 2>>);

template <size_t D> std::vector<double> values(const Tensor<Cpu, D>& t) {
  return t.to_data().template to_vector<double>();
}

TEST(Autodiff, ReadmeExample) {
  auto x = T2::random({32, 32}, Distribution::Default);
  auto y = T2::random({32, 32}, Distribution::Default).require_grad();
  auto tmp = x + y;
  tmp = tmp * x;
  tmp = tmp.exp();
  auto grads = tmp.backward();
  auto y_grad = y.grad(grads);
  ASSERT_TRUE(y_grad.has_value());
  // d/dy exp((x + y) x) = exp((x + y) x) · x
  auto expected = ((x + y) * x).exp().mul(x).inner();
  y_grad->to_data().assert_approx_eq(expected.to_data(), Tolerance::rel_abs(1e-6, 1e-6));
  EXPECT_FALSE(x.grad(grads).has_value());  // x does not require grad
}

TEST(Autodiff, LinearGradientsMatchTheComposedOpsWhateverNeedsThem) {
  auto x0 = T2::random({4, 5}, Distribution::normal(0, 1)), w0 = T2::random({5, 3}, Distribution::normal(0, 1));
  auto b0 = Tensor<AD, 1>::random({3}, Distribution::normal(0, 1));
  // x and weight tracked or not (a first layer's input, a frozen weight), bias always; with relu and without.
  for (int tracked : {3, 1, 2}) {
    for (bool relu : {false, true}) {
      SCOPED_TRACE(std::to_string(tracked) + (relu ? " relu" : ""));
      auto x = tracked & 1 ? x0.detach().require_grad() : x0.detach();
      auto w = tracked & 2 ? w0.detach().require_grad() : w0.detach();
      auto b = b0.detach().require_grad();
      auto g = T2::random({4, 3}, Distribution::normal(0, 1));
      auto fused = (functional::linear(x, w, std::optional(b), relu) * g).sum().backward();
      auto sum = x.matmul(w) + b.unsqueeze<2>();
      auto composed = ((relu ? activation::relu(sum) : sum) * g).sum().backward();
      Tolerance tol = Tolerance::rel_abs(1e-5, 1e-5);
      if (tracked & 1) x.grad(fused)->to_data().assert_approx_eq(x.grad(composed)->to_data(), tol);
      if (tracked & 2) w.grad(fused)->to_data().assert_approx_eq(w.grad(composed)->to_data(), tol);
      b.grad(fused)->to_data().assert_approx_eq(b.grad(composed)->to_data(), tol);
      EXPECT_EQ(x.grad(fused).has_value(), (tracked & 1) != 0);
      EXPECT_EQ(w.grad(fused).has_value(), (tracked & 2) != 0);
    }
  }
}

TEST(Autodiff, RequireGradDetachAndInner) {
  auto x = T2::from_data({{1., 2.}, {3., 4.}});
  EXPECT_FALSE(x.is_require_grad());
  auto leaf = x.require_grad();
  EXPECT_TRUE(leaf.is_require_grad());
  EXPECT_FALSE(leaf.set_require_grad(false).is_require_grad());
  auto y = leaf.mul_scalar(3.0);
  EXPECT_FALSE(y.is_require_grad());  // an intermediate does not keep its gradient unless asked
  EXPECT_FALSE(y.detach().is_require_grad());
  auto inner = y.inner();
  EXPECT_EQ(values(inner), (std::vector<double>{3, 6, 9, 12}));
  auto back = T2::from_inner(inner);
  EXPECT_FALSE(back.is_require_grad());
  // A detached branch sends no gradient.
  auto grads = (y.detach() * leaf).sum().backward();
  EXPECT_EQ(values(*leaf.grad(grads)), (std::vector<double>{3, 6, 9, 12}));
}

TEST(Autodiff, IntermediateGradientKeptOnRequest) {
  auto x = T2::from_data({{1., 2.}}).require_grad();
  auto h = x.mul_scalar(2.0).require_grad();  // keep h's gradient too (retain_grad)
  auto grads = h.exp().sum().backward();
  auto gh = h.grad(grads);
  ASSERT_TRUE(gh.has_value());
  EXPECT_NEAR(values(*gh)[1], std::exp(4.0), 1e-4);
  EXPECT_NEAR(values(*x.grad(grads))[1], 2 * std::exp(4.0), 1e-3);
}

TEST(Autodiff, GradRemoveAndReplace) {
  auto x = T2::from_data({{1., 2.}}).require_grad();
  auto grads = x.mul(x).sum().backward();
  EXPECT_EQ(values(*x.grad(grads)), (std::vector<double>{2, 4}));
  x.grad_replace(grads, Tensor<Cpu, 2>::from_data({{7., 8.}}));
  EXPECT_EQ(values(*x.grad(grads)), (std::vector<double>{7, 8}));
  auto removed = x.grad_remove(grads);
  ASSERT_TRUE(removed.has_value());
  EXPECT_FALSE(x.grad(grads).has_value());
  EXPECT_TRUE(grads.empty());
  expect_error<ShapeError>([&] { x.grad_replace(grads, Tensor<Cpu, 2>::ones({3, 3})); }, "[grad_replace]");
}

TEST(Autodiff, GradientsAccumulateOverReusedTensors) {
  auto x = T2::from_data({{1., -2.}, {3., 0.5}}).require_grad();
  auto y = x * x + x.mul_scalar(3.0) + x.sin();
  auto grads = y.sum().backward();
  auto g = values(*x.grad(grads));
  std::vector<double> xs{1, -2, 3, 0.5};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(g[i], 2 * xs[i] + 3 + std::cos(xs[i]), 1e-6);
}

// prod's gradient multiplies the other elements' products; with no elements there are none (it used to
// wrap n - 1 and corrupt the heap).
TEST(Autodiff, ProductsOfEmptyTensorsHaveEmptyGradients) {
  auto x = T2::zeros(Shape{0, 3}).require_grad();
  auto whole = x.prod();
  EXPECT_EQ(values(whole.inner()), (std::vector<double>{1.0}));
  auto grads = whole.backward();
  EXPECT_EQ(x.grad(grads)->shape(), Shape({0, 3}));
  auto rows = x.prod_dim(1);
  EXPECT_EQ(rows.shape(), Shape({0, 1}));
  auto row_grads = rows.sum().backward();
  EXPECT_EQ(x.grad(row_grads)->shape(), Shape({0, 3}));
}

TEST(Autodiff, GradientsMoveToAnotherThread) {
  auto x = T2::from_data({{1., 2., 3.}}).require_grad();
  auto grads = x.exp().sum().backward();
  std::vector<double> seen;
  std::thread worker([g = std::move(grads), &seen, x]() mutable { seen = values(*x.grad(g)); });
  worker.join();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_NEAR(seen[2], std::exp(3.0), 1e-4);
}

TEST(Autodiff, ClearErrors) {
  auto x = T2::ones({2, 2});
  expect_error<ValueError>([&] { x.sum().backward(); }, "[backward] the tensor of shape [1] is not tracked");
  auto w = T2::ones({2, 2}).require_grad();
  auto loss = w.exp().sum();
  auto first = loss.backward();
  expect_error<ValueError>([&] { loss.backward(); }, "[backward] the graph through op 'sum' was already used");
}

TEST(Autodiff, UntrackedOpsRecordNothing) {
  int64_t before = autodiff::live_nodes();
  auto x = T2::ones({4, 4});
  auto y = x.exp().matmul(x).sum_dim(1);
  EXPECT_EQ(autodiff::live_nodes(), before);
  EXPECT_FALSE(y.primitive().tracked());
}

/// One step of a two-layer MLP with a softmax cross-entropy-like loss.
double mlp_step(const T2& w1, const T2& w2, const T2& x) {
  auto h = activation::relu(x.matmul(w1));
  auto logits = h.matmul(w2);
  auto loss = activation::log_softmax(logits, 1).mean().neg();
  auto grads = loss.backward();
  return w1.grad(grads)->sum().into_scalar().to_double() + w2.grad(grads)->sum().into_scalar().to_double();
}

TEST(Autodiff, GraphMemoryStaysFlatOverTwoThousandSteps) {
  auto w1 = T2::random({16, 32}, Distribution::normal(0, 0.1)).require_grad();
  auto w2 = T2::random({32, 8}, Distribution::normal(0, 0.1)).require_grad();
  auto x = T2::random({4, 16}, Distribution::Default);
  mlp_step(w1, w2, x);
  int64_t nodes = autodiff::live_nodes();
  size_t bytes = backends::cpu::host_cache::live_bytes();
  for (int step = 0; step < 2000; ++step) mlp_step(w1, w2, x);
  EXPECT_EQ(autodiff::live_nodes(), nodes);
  EXPECT_EQ(backends::cpu::host_cache::live_bytes(), bytes);
}

TEST(Autodiff, GraphFreedWhenDroppedWithoutBackward) {
  int64_t before = autodiff::live_nodes();
  {
    auto w = T2::ones({8, 8}).require_grad();
    auto y = w;
    for (int i = 0; i < 100; ++i) y = y.sin().mul_scalar(1.5);
    EXPECT_GT(autodiff::live_nodes(), before + 200);
  }
  EXPECT_EQ(autodiff::live_nodes(), before);
}

TEST(Autodiff, DeepChainsFreeWithoutStackOverflow) {
  int64_t before = autodiff::live_nodes();
  {
    auto y = Tensor<AD, 1>::ones({1}).require_grad();
    for (int i = 0; i < 200000; ++i) y = y.add_scalar(1.0);
  }
  EXPECT_EQ(autodiff::live_nodes(), before);
}

/// Peak live tensor bytes of forward + backward through a chain of n sin/exp ops.
size_t chain_peak(size_t n, bool checkpointing) {
  if (checkpointing) AD::set_checkpointing(BalancedCheckpointing{});
  auto x = Tensor<AD, 1>::random({1 << 16}, Distribution::uniform(-1, 1)).require_grad();
  backends::cpu::host_cache::reset_peak();
  size_t start = backends::cpu::host_cache::live_bytes();
  auto y = x;
  for (size_t i = 0; i < n; ++i) y = (i % 2 ? y.sin() : y.mul_scalar(0.5).exp());
  auto grads = y.sum().backward();
  EXPECT_TRUE(x.grad(grads).has_value());
  AD::reset_checkpointing();
  return backends::cpu::host_cache::peak_bytes() - start;
}

TEST(Autodiff, BalancedCheckpointingLowersPeakMemoryOfDeepChains) {
  size_t plain = chain_peak(200, false), balanced = chain_peak(200, true);
  std::printf("[ checkpoint ] 200-op chain of 256 KiB tensors: peak %.1f MiB plain, %.1f MiB balanced\n",
              plain / 1048576.0, balanced / 1048576.0);
  EXPECT_LT(balanced * 2, plain);
}

TEST(Autodiff, CheckpointingIsPerDevice) {
  AD::set_checkpointing(CpuDevice{}, BalancedCheckpointing{4});
  auto x = Tensor<AD, 1>::from_data({0.1, 0.2, 0.3}).require_grad();
  auto y = x;
  for (int i = 0; i < 10; ++i) y = y.sin();
  auto g = values(*x.grad(y.sum().backward()));
  AD::reset_checkpointing();
  auto y2 = x;
  for (int i = 0; i < 10; ++i) y2 = y2.sin();
  auto g2 = values(*x.grad(y2.sum().backward()));
  EXPECT_EQ(g, g2);
}

}  // namespace
}  // namespace scorch
