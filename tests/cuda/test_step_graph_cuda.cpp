// StepGraph on the Cuda stacks: the guide's training step captured once and replayed gives the parameters the eager
// steps give, a replayed step is one graph launch, a new batch shape runs eagerly, random ops draw fresh values on
// each replay, and a step that reads device values while captured fails clearly, restores the state it found and
// leaves later steps eager.
#include <scorch/stacks/fusion_cuda/autodiff.h>
#include <scorch/train/step_graph.h>

#include "cuda_test_util.h"
#include "guide/model_forward.hpp"

namespace scorch {
namespace {

namespace cuda = backends::cuda;

template <class AD> struct Batch {
  Tensor<AD, 3> images;
  Tensor<AD, 1, Int> targets;
};

template <class AD> std::vector<Batch<AD>> batches(size_t count, size_t size) {
  std::vector<Batch<AD>> out;
  for (size_t i = 0; i < count; ++i)
    out.push_back({Tensor<AD, 3>::random({size, 28, 28}, Distribution::normal(0, 1)),
                   Tensor<AD, 1, Int>::random({size}, Distribution::uniform(0, 10))});
  return out;
}

/// The guide's model, a capturable Adam and one training step over a batch.
template <class AD> struct Trainer {
  guide::Model<AD> model;
  optim::OptimizerAdaptor<optim::Adam> optimizer = optim::AdamConfig().with_capturable(true).init();
  nn::CrossEntropyLoss<AD> loss_fn = nn::CrossEntropyLossConfig().init<AD>();
  Tensor<typename AD::InnerBackend, 1> loss = {};

  void step(const Batch<AD>& batch) {
    auto l = loss_fn.forward(model.forward(batch.images), batch.targets);
    auto grads = optim::GradientsParams::from_grads(l.backward(), model);
    model = optimizer.step(1e-3, model, std::move(grads));
    loss = l.inner();
  }
  typename train::StepGraph<AD>::Tensors state() const {
    return typename train::StepGraph<AD>::Tensors().add_module(model).add_optimizer(optimizer);
  }
};

/// Appends every parameter's values, in visiting order.
struct CollectParams {
  std::vector<float>& out;
  template <class P> void visit(const std::string&, const P& p) {
    auto values = p.val().inner().into_data().template to_vector<float>();
    out.insert(out.end(), values.begin(), values.end());
  }
};

template <class AD> std::vector<float> flat_params(const guide::Model<AD>& model) {
  std::vector<float> out;
  CollectParams collect{out};
  visit_module(model, collect);
  return out;
}

template <class AD> void expect_replays_match_eager() {
  Cuda::seed(11);
  auto initial = guide::ModelConfig(10, 64).with_dropout(0.0).init<AD>();
  auto data = batches<AD>(6, 32);
  Trainer<AD> eager{initial}, graphed{initial};
  train::StepGraph<AD> graph;
  for (const auto& batch : data) {
    eager.step(batch);
    graph.step(
        typename train::StepGraph<AD>::Tensors().add(batch.images).add(batch.targets), [&] { return graphed.state(); },
        [&] { graphed.step(batch); });
    EXPECT_NEAR(graphed.loss.into_scalar().to_double(), eager.loss.into_scalar().to_double(), 1e-4);
  }
  const auto& stats = graph.stats();
  EXPECT_EQ(stats.eager_steps, 1u);
  EXPECT_EQ(stats.captures, 1u);
  EXPECT_EQ(stats.replays, 5u);
  EXPECT_GT(stats.graph_kernels, 20u);
  EXPECT_TRUE(stats.eager_reason.empty()) << stats.eager_reason;
  auto expected = flat_params(eager.model), actual = flat_params(graphed.model);
  ASSERT_EQ(actual.size(), expected.size());
  double worst = 0;
  for (size_t i = 0; i < actual.size(); ++i) worst = std::max(worst, std::abs(double(actual[i]) - expected[i]));
  EXPECT_LT(worst, 1e-4) << "parameters after 6 replayed steps differ from 6 eager steps";
}

TEST(StepGraphCuda, ReplayedTrainingStepsMatchEagerSteps) {
  SCORCH_REQUIRE_CUDA();
  expect_replays_match_eager<Autodiff<Cuda>>();
}

TEST(StepGraphCuda, ReplayedFusedTrainingStepsMatchEagerSteps) {
  SCORCH_REQUIRE_CUDA();
  expect_replays_match_eager<Autodiff<Fusion<Cuda>>>();
}

TEST(StepGraphCuda, AReplayedStepLaunchesOneGraphAndANewShapeRunsEagerly) {
  SCORCH_REQUIRE_CUDA();
  using AD = Autodiff<Cuda>;
  Trainer<AD> trainer{guide::ModelConfig(10, 64).init<AD>()};
  train::StepGraph<AD> graph;
  auto data = batches<AD>(1, 32);
  auto run = [&](const Batch<AD>& batch) {
    graph.step(
        train::StepGraph<AD>::Tensors().add(batch.images).add(batch.targets), [&] { return trainer.state(); },
        [&] { trainer.step(batch); });
  };
  run(data[0]);
  run(data[0]);
  auto launches = cuda::count_launches(0, [&] { run(data[0]); });
  EXPECT_EQ(launches.graphs, 1u) << "a replayed step is one graph launch";
  EXPECT_EQ(launches.kernels, 0u) << "and nothing else when its inputs are the captured ones";
  auto small = batches<AD>(1, 8);
  run(small[0]);
  EXPECT_EQ(graph.stats().fallbacks, 1u);
  double loss = trainer.loss.into_scalar().to_double();
  EXPECT_TRUE(std::isfinite(loss));
  run(data[0]);  // back to the captured shape: the state the eager step made is copied in and back
  EXPECT_EQ(graph.stats().captures, 1u);
  EXPECT_TRUE(std::isfinite(trainer.loss.into_scalar().to_double()));
}

TEST(StepGraphCuda, RandomOpsDrawFreshValuesOnEachReplay) {
  SCORCH_REQUIRE_CUDA();
  using B = Cuda;
  train::StepGraph<B> graph;
  Tensor<B, 1> mask;
  std::vector<std::vector<float>> seen;
  for (int i = 0; i < 4; ++i) {
    graph.step(
        {}, [] { return train::StepGraph<B>::Tensors(); },
        [&] { mask = Tensor<B, 1>::random({4096}, Distribution::bernoulli(0.5)); });
    seen.push_back(mask.into_data().to_vector<float>());
  }
  EXPECT_EQ(graph.stats().replays, 3u);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_NE(seen[i], seen[i - 1]) << "replay " << i << " repeated its mask";
  for (float v : seen.back()) ASSERT_TRUE(v == 0.0f || v == 1.0f);
}

TEST(StepGraphCuda, AStepThatReadsValuesFailsToCaptureAndLaterStepsRunEagerly) {
  SCORCH_REQUIRE_CUDA();
  using B = Cuda;
  train::StepGraph<B> graph;
  auto x = Tensor<B, 1>::ones({16});
  double total = 0;
  auto body = [&] {
    x = x + 1.0;
    total = x.sum().into_scalar().to_double();
  };
  auto state = [&] { return train::StepGraph<B>::Tensors().add(x); };
  graph.step({}, state, body);
  EXPECT_THROW(graph.step({}, state, body), Error);
  EXPECT_FALSE(graph.stats().eager_reason.empty());
  EXPECT_DOUBLE_EQ(x.sum().into_scalar().to_double(), 32.0) << "the failed step leaves the state as it found it";
  graph.step({}, state, body);
  EXPECT_DOUBLE_EQ(total, 48.0) << "after a failed capture the device and the step still work";
  EXPECT_EQ(graph.stats().eager_steps, 2u);
}

}  // namespace
}  // namespace scorch
