// Fusion<Cpu>'s op stream: elementwise ops wait until a value is needed, a computed graph runs as one program
// (block by block when large), results equal Cpu's, intermediates no handle holds are never stored, and
// shapes, dtypes, views and broadcasts keep working. Counts come from Fusion<Cpu>::stats().
#include <gtest/gtest.h>

#include <thread>

#include <scorch/scorch.hpp>
#include <scorch/stacks/fusion_cpu/autodiff.h>

namespace scorch::testing {
namespace {

using FB = FusionCpu;

/// The user-written GELU of the Burn Book: five elementwise ops.
template <class B> Tensor<B, 2> gelu_custom(const Tensor<B, 2>& x) {
  return x * 0.5 * ((x / std::sqrt(2.0)).erf() + 1.0);
}

template <class B> Tensor<B, 2> on(const TensorData& data) { return Tensor<B, 2>::from_data(data); }

TensorData random_data(Shape shape, uint64_t seed) {
  Cpu::seed(seed);
  return Tensor<Cpu, 2>::random(shape, Distribution::uniform(-3, 3)).to_data();
}

/// Programs, fused programs and ops the stream ran during f.
template <class F> fusion::Stats counted(F f) {
  auto before = FB::stats();
  f();
  auto after = FB::stats();
  return {after.programs - before.programs, after.fused_programs - before.fused_programs, after.ops - before.ops,
          after.eager_ops - before.eager_ops};
}

TEST(FusionStream, GeluChainIsOneProgramAndMatchesCpu) {
  for (Shape shape : {Shape{3, 5}, Shape{300, 1000}}) {  // small: op after op; large: blocked
    auto data = random_data(shape, 1);
    TensorData fused;
    auto stats = counted([&] { fused = gelu_custom(on<FB>(data)).to_data(); });
    EXPECT_EQ(stats.programs, 1u);
    EXPECT_EQ(stats.ops, 5u);
    EXPECT_EQ(stats.fused_programs, shape.num_elements() >= fusion::kFusedMinElements ? 1u : 0u);
    fused.assert_eq(gelu_custom(on<Cpu>(data)).to_data());
  }
}

TEST(FusionStream, ReductionsRunOnTheBlocksOfTheOpsTheyRead) {
  auto data = random_data({300, 1000}, 9);
  auto run = [&]<class B>(std::vector<TensorData>& out) {
    auto x = on<B>(data);
    auto expression = [&] { return x * 0.5 + x.exp(); };
    out.push_back(activation::softmax(expression(), 1).to_data());
    out.push_back(activation::log_softmax(expression(), 0).to_data());
    out.push_back(expression().sum_dim(0).to_data());
    out.push_back(expression().mean_dim(1).to_data());
    auto held = expression();  // a handle keeps it: the reduction's blocks store it too
    auto max = held.max_dim(1);
    if constexpr (std::is_same_v<B, FB>) { EXPECT_TRUE(max.primitive().is_pending()); }
    out.push_back(max.to_data());
    out.push_back(held.to_data());
  };
  std::vector<TensorData> fused, eager;
  auto stats = counted([&] { run.template operator()<FB>(fused); });
  run.template operator()<Cpu>(eager);
  // sum, mean, max: one blocked program each; softmax and log-softmax (same shape out): their input's blocked
  // program, then the reduction alone.
  EXPECT_EQ(stats.programs, 7u);
  EXPECT_EQ(stats.fused_programs, 5u);
  EXPECT_EQ(stats.ops, 5u * 4u);   // mul, exp, add and the reduction
  EXPECT_EQ(stats.eager_ops, 7u);  // from_data and six into_data: no reduction ran on its own
  for (size_t i = 0; i < fused.size(); ++i) fused[i].assert_eq(eager[i]);
}

TEST(FusionStream, ReductionsOfAnEmptyDimBehaveAsOnCpuAtOnce) {
  auto empty = Tensor<FB, 2>::zeros({3, 0}) + 1.0;   // pending
  EXPECT_THROW((void)empty.max_dim(1), ShapeError);  // when called, as on Cpu, not when read
  auto sums = (Tensor<FB, 2>::zeros({3, 0}) * 2.0).sum_dim(1);
  sums.to_data().assert_eq(Tensor<Cpu, 2>::zeros({3, 1}).to_data());
}

TEST(FusionStream, OpsWaitUntilAValueIsNeeded) {
  auto x = on<FB>(random_data({4, 4}, 2));
  auto y = (x + 1.0).exp();
  EXPECT_TRUE(y.primitive().is_pending());
  auto stats = counted([&] { (void)y.sum(); });  // a reduction needs y: its graph runs first
  EXPECT_EQ(stats.programs, 1u);
  EXPECT_EQ(stats.eager_ops, 1u);
  EXPECT_FALSE(y.primitive().is_pending());
}

TEST(FusionStream, IntermediatesHeldByAHandleAreOutputsOthersAreNot) {
  auto data = random_data({512, 512}, 3);
  auto x = on<FB>(data);
  auto kept = x * 2.0;
  auto dropped = kept + 1.0;
  auto unheld = (x - 1.0).abs();  // an intermediate no handle keeps once z is recorded
  auto z = ((dropped * kept) + unheld.sqrt()).tanh();
  unheld = Tensor<FB, 2>();
  auto cpu = on<Cpu>(data);
  auto expected = ((cpu * 2.0 + 1.0) * (cpu * 2.0) + (cpu - 1.0).abs().sqrt()).tanh().to_data();
  auto stats = counted([&] { z.to_data().assert_eq(expected); });
  EXPECT_EQ(stats.programs, 1u);
  EXPECT_EQ(stats.ops, 8u);
  EXPECT_FALSE(kept.primitive().is_pending());  // computed with z, once
  EXPECT_FALSE(dropped.primitive().is_pending());
  kept.to_data().assert_eq((on<Cpu>(data) * 2.0).to_data());
}

TEST(FusionStream, ProductsWaitWithTheOpsAfterThemAndMatchCpu) {
  auto a = random_data({64, 48}, 11), w = random_data({48, 80}, 12), bias = random_data({1, 80}, 13);
  auto r = random_data({64, 80}, 14);
  auto run = [&]<class B>() {
    auto x = on<B>(a), W = on<B>(w), b = on<B>(bias), res = on<B>(r);
    auto h = x.exp();  // pending: computed when the product is recorded
    auto y = activation::relu(h.matmul(W) + b);
    auto product = h.matmul(W);  // held by a handle: the chain after it stops at it
    auto z = product * 0.5 + res;
    auto two = x.matmul(W) + (x * 2.0).matmul(W);        // two products in one program
    auto nested = x.matmul(W).matmul(W.transpose());     // a product of a pending product
    auto empty = x.slice({{0, 0}}).matmul(W) + b;        // no rows: run at once
    return std::vector<TensorData>{y.to_data(),   product.to_data(), z.to_data(),
                                   two.to_data(), nested.to_data(),  empty.to_data()};
  };
  auto fused = run.template operator()<FB>();
  auto cpu = run.template operator()<Cpu>();
  for (size_t i = 0; i < fused.size(); ++i) fused[i].assert_eq(cpu[i]);
  auto x = on<FB>(a), W = on<FB>(w);
  auto p = x.matmul(W);
  EXPECT_TRUE(p.primitive().is_pending());  // waits until its value is needed
  auto stats = counted([&] { (void)(p + 1.0).to_data(); });
  EXPECT_EQ(stats.programs, 2u);  // the product (Cpu folds nothing into it), then the add
  EXPECT_FALSE(p.primitive().is_pending());
  EXPECT_THROW((void)x.matmul(on<FB>(random_data({47, 3}, 15))), ShapeError);  // checked when called
}

TEST(FusionStream, BroadcastsViewsDtypesAndKindsMatchCpu) {
  auto a = random_data({256, 300}, 4), row = random_data({1, 300}, 5), col = random_data({256, 1}, 6);
  auto run = [&]<class B>() {
    auto x = on<B>(a), r = on<B>(row), c = on<B>(col);
    auto view = x.swap_dims(0, 1).narrow(0, 10, 200).swap_dims(0, 1);  // a strided view
    auto mixed = ((view + r.narrow(1, 10, 200)) * c).clamp(-2.0, 2.0);
    auto mask = mixed.greater_elem(0.5);
    auto chosen = mixed.mask_where(mask, mixed.exp()).mask_fill(mixed.lower_elem(-1.0), 7.0);
    auto half = activation::sigmoid(chosen.cast(DType::F16)).cast(DType::F32);
    auto ints = (chosen * 10.0).int_() + 3;
    return std::tuple{half.to_data(), ints.to_data(), mask.bool_not().to_data()};
  };
  auto [half, ints, mask] = run.template operator()<FB>();
  auto [half_cpu, ints_cpu, mask_cpu] = run.template operator()<Cpu>();
  half.assert_eq(half_cpu);
  ints.assert_eq(ints_cpu);
  mask.assert_eq(mask_cpu);
}

TEST(FusionStream, ZeroSizeAndSyncComputeEverythingHeld) {
  auto empty = Tensor<FB, 2>::zeros({0, 3});
  (empty.exp() + 1.0).to_data().assert_eq(TensorData::zeros(Shape({0, 3}), DType::F32));
  auto x = on<FB>(random_data({64, 64}, 7));
  auto y = x.exp() * 3.0;
  auto stats = counted([&] { FB::sync(CpuDevice{}); });
  EXPECT_EQ(stats.programs, 1u);
  EXPECT_FALSE(y.primitive().is_pending());
}

TEST(FusionStream, AFlushRunsOneFusedProgramPerShape) {
  // An optimizer step leaves one waiting chain per parameter: a mixed-shape program would run op by op.
  auto a_data = random_data({300, 1000}, 8), b_data = random_data({600, 500}, 9);
  auto a = on<FB>(a_data), b = on<FB>(b_data);
  auto a2 = a * 2.0 + 1.0, a3 = a.exp() - a, b2 = b * 3.0 - 1.0;
  auto stats = counted([] { FB::flush(); });
  EXPECT_EQ(stats.programs, 2u);
  EXPECT_EQ(stats.fused_programs, 2u);
  EXPECT_EQ(stats.ops, 6u);
  auto ca = on<Cpu>(a_data), cb = on<Cpu>(b_data);
  a2.to_data().assert_eq((ca * 2.0 + 1.0).to_data());
  a3.to_data().assert_eq((ca.exp() - ca).to_data());
  b2.to_data().assert_eq((cb * 3.0 - 1.0).to_data());
}

TEST(FusionStream, LongChainsAreCutAndResultsStayExact) {
  auto data = random_data({100, 100}, 8);
  auto f = on<FB>(data);
  auto c = on<Cpu>(data);
  for (int i = 0; i < 3 * static_cast<int>(fusion::kMaxChain); ++i) f = f * 0.99 + 0.01, c = c * 0.99 + 0.01;
  f.to_data().assert_eq(c.to_data());
}

TEST(FusionStream, ThreadsRecordAndComputeConcurrently) {
  auto data = random_data({200, 400}, 9);
  auto expected = gelu_custom(on<Cpu>(data)).to_data();
  std::vector<std::thread> threads;
  std::vector<TensorData> results(4);
  auto shared = on<FB>(data) + 0.0;  // one pending value used by every thread
  for (size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] { results[t] = gelu_custom(shared).to_data(); });
  for (auto& t : threads) t.join();
  for (auto& r : results) r.assert_eq(expected);
}

TEST(FusionStream, TrainsThroughAutodiff) {
  using AD = Autodiff<FB>;
  auto data = random_data({32, 32}, 10);
  auto x = Tensor<AD, 2>::from_data(data).require_grad();
  auto grads = gelu_custom(x).sum().backward();
  auto xc = Tensor<Autodiff<Cpu>, 2>::from_data(data).require_grad();
  auto grads_cpu = gelu_custom(xc).sum().backward();
  x.grad(grads)->to_data().assert_approx_eq(xc.grad(grads_cpu)->to_data());
}

}  // namespace
}  // namespace scorch::testing
