// Every optimizer rule against PyTorch's (fixtures/optim.json): six steps with fixed gradients
// and changing learning rates, parameters compared after each step; L-BFGS on a smooth
// objective with and without the strong-Wolfe line search.
#include <gtest/gtest.h>

#include <cmath>

#include <scorch/scorch.hpp>
#include <scorch/train/step_graph.h>

#include "conformance/harness.h"
#include "optim_fixtures.h"

namespace scorch::optimtest {
namespace {

using namespace scorch::optim;

/// Two parameters, the shapes the fixtures use.
template <class B> struct TwoParams {
  Param<Tensor<B, 2>> a;
  Param<Tensor<B, 1>> b;
  SCORCH_MODULE(TwoParams, a, b)
};

const nlohmann::json& find_case(const std::string& name) {
  static const nlohmann::json all = load_fixture("optim.json");
  for (const auto& c : all)
    if (c.at("name") == name) return c;
  throw ValueError("find_case", "no optimizer fixture " + name);
}

constexpr Tolerance kTolerance{1e-4, 1e-6};

template <class Optim> void run_fixture(const std::string& name, Optim optim) {
  SCOPED_TRACE(name);
  const auto& c = find_case(name);
  TwoParams<Cpu> model{Param(Tensor<Cpu, 2>::from_data(conformance::decode_tensor(c["params"][0]))),
                       Param(Tensor<Cpu, 1>::from_data(conformance::decode_tensor(c["params"][1])))};
  for (size_t t = 0; t < c["lrs"].size(); ++t) {
    GradientsParams grads;
    grads.register_grad(model.a.id(), Tensor<Cpu, 2>::from_data(conformance::decode_tensor(c["grads"][t][0])));
    grads.register_grad(model.b.id(), Tensor<Cpu, 1>::from_data(conformance::decode_tensor(c["grads"][t][1])));
    model = optim.step(c["lrs"][t].get<double>(), model, std::move(grads));
    conformance::decode_tensor(c["expected"][t][0])
        .convert(DType::F32)
        .assert_approx_eq(model.a.val().to_data(), kTolerance);
    conformance::decode_tensor(c["expected"][t][1])
        .convert(DType::F32)
        .assert_approx_eq(model.b.val().to_data(), kTolerance);
  }
}

TEST(Optimizers, SgdMatchesPyTorch) {
  run_fixture("sgd", SgdConfig().init());
  run_fixture("sgd_momentum", SgdConfig()
                                  .with_momentum(MomentumConfig().with_momentum(0.9).with_dampening(0.1))
                                  .with_weight_decay(WeightDecayConfig(0.01))
                                  .init());
  run_fixture("sgd_nesterov",
              SgdConfig().with_momentum(MomentumConfig().with_dampening(0.0).with_nesterov(true)).init());
  run_fixture("sgd_clip_value", SgdConfig().with_gradient_clipping(GradientClippingConfig::value(0.05)).init());
  run_fixture("sgd_clip_norm", SgdConfig().with_gradient_clipping(GradientClippingConfig::norm(0.5)).init());
}

TEST(Optimizers, AdamAndAdamWMatchPyTorch) {
  run_fixture("adam", AdamConfig().init());
  run_fixture("adam_amsgrad_wd", AdamConfig().with_amsgrad(true).with_weight_decay(WeightDecayConfig(0.01)).init());
  run_fixture("adamw", AdamWConfig().with_weight_decay(0.01).init());
  run_fixture("adamw_amsgrad", AdamWConfig().with_weight_decay(0.01).with_amsgrad(true).init());
}

TEST(Optimizers, CapturableRulesMatchPyTorchWhileTheirStepIsCaptured) {
  StepCaptureScope capturing;  // as inside StepGraph's capture: the step constants must come from the device
  run_fixture("adam", AdamConfig().with_capturable(true).init());
  run_fixture("adam_amsgrad_wd",
              AdamConfig().with_amsgrad(true).with_weight_decay(WeightDecayConfig(0.01)).with_capturable(true).init());
  run_fixture("adamw", AdamWConfig().with_weight_decay(0.01).with_capturable(true).init());
  run_fixture("sgd_clip_norm", SgdConfig().with_gradient_clipping(GradientClippingConfig::norm(0.5)).init());
}

TEST(Optimizers, CapturableAdamMatchesPyTorchOutsideACaptureToo) {
  run_fixture("adam", AdamConfig().with_capturable(true).init());
}

TEST(Optimizers, RulesWithHostStepConstantsRefuseToBeCaptured) {
  TwoParams<Cpu> model{Param(Tensor<Cpu, 2>::ones({2, 3})), Param(Tensor<Cpu, 1>::ones({3}))};
  auto grads = [&] {
    GradientsParams g;
    g.register_grad(model.a.id(), Tensor<Cpu, 2>::ones({2, 3}));
    g.register_grad(model.b.id(), Tensor<Cpu, 1>::ones({3}));
    return g;
  };
  StepCaptureScope capturing;
  auto adam = AdamConfig().init();
  auto adagrad = AdaGradConfig().init();
  auto adan = AdanConfig().init();
  EXPECT_THROW(adam.step(0.1, model, grads()), ValueError);
  EXPECT_THROW(adagrad.step(0.1, model, grads()), ValueError);
  EXPECT_THROW(adan.step(0.1, model, grads()), ValueError);
}

TEST(Optimizers, StepGraphRunsEveryStepOnABackendWithoutCapture) {
  TwoParams<Cpu> model{Param(Tensor<Cpu, 2>::ones({2, 3})), Param(Tensor<Cpu, 1>::ones({3}))};
  auto optim = AdamConfig().with_capturable(true).init();
  train::StepGraph<Cpu> graph;
  auto input = Tensor<Cpu, 2>::ones({2, 3});
  for (int i = 0; i < 3; ++i)
    graph.step(
        train::StepGraph<Cpu>::Tensors().add(input), [&] { return train::StepGraph<Cpu>::Tensors().add_module(model); },
        [&] {
          GradientsParams g;
          g.register_grad(model.a.id(), input * 2.0);
          model = optim.step(0.1, model, std::move(g));
        });
  EXPECT_EQ(graph.stats().eager_steps, 3u);
  EXPECT_EQ(graph.stats().captures, 0u);
  EXPECT_FALSE(train::StepGraph<Cpu>::captures());
  auto a = model.a.val().to_data().to_vector<float>();
  EXPECT_NEAR(a[0], 1.0 - 3 * 0.1, 1e-3) << "three Adam steps of size lr along a constant gradient";
  EXPECT_EQ(train::StepGraph<Cpu>::Tensors().add_module(model).size(), 2u);
  EXPECT_NE(train::StepGraph<Cpu>::Tensors().add(input).signature(),
            train::StepGraph<Cpu>::Tensors().add(Tensor<Cpu, 2>::ones({3, 2})).signature());
}

TEST(Optimizers, AdaGradRmsPropAdanMatchReference) {
  run_fixture("adagrad", AdaGradConfig().with_lr_decay(0.01).with_weight_decay(WeightDecayConfig(0.01)).init());
  run_fixture("rmsprop", RmsPropConfig().init());
  run_fixture("rmsprop_centered",
              RmsPropConfig().with_momentum(0.0).with_centered(true).with_weight_decay(WeightDecayConfig(0.01)).init());
  run_fixture("adan", AdanConfig().with_weight_decay(0.02).init());
  run_fixture("adan_no_prox", AdanConfig().with_weight_decay(0.02).with_no_prox(true).init());
}

/// f(x) = Σ(Ax − b)² + 0.1·Σx⁴ and its gradient, in double.
LossAndGrad objective(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& x) {
  size_t rows = b.size(), cols = x.size();
  LossAndGrad out{0.0, std::vector<double>(cols, 0.0)};
  for (size_t i = 0; i < rows; ++i) {
    double r = -b[i];
    for (size_t j = 0; j < cols; ++j) r += a[i * cols + j] * x[j];
    out.loss += r * r;
    for (size_t j = 0; j < cols; ++j) out.grad[j] += 2 * r * a[i * cols + j];
  }
  for (size_t j = 0; j < cols; ++j) out.loss += 0.1 * std::pow(x[j], 4), out.grad[j] += 0.4 * std::pow(x[j], 3);
  return out;
}

LbfgsConfig lbfgs_config(const nlohmann::json& o) {
  return LbfgsConfig()
      .with_lr(o["lr"])
      .with_max_iter(o["max_iter"])
      .with_max_eval(o["max_eval"].get<size_t>())
      .with_history_size(o["history_size"])
      .with_tolerance_grad(o["tolerance_grad"])
      .with_tolerance_change(o["tolerance_change"])
      .with_line_search_fn(o["line_search_fn"].is_null() ? LineSearch::None : LineSearch::StrongWolfe);
}

std::vector<double> values(const nlohmann::json& t) {
  return conformance::decode_tensor(t).convert(DType::F64).to_vector<double>();
}

TEST(Optimizers, LbfgsMatchesPyTorchInDouble) {
  for (const char* name : {"lbfgs", "lbfgs_wolfe"}) {
    SCOPED_TRACE(name);
    const auto& c = find_case(name);
    auto a = values(c["A"]), b = values(c["b"]), x = values(c["x0"]);
    auto optim = lbfgs_config(c["options"]).init();
    for (const auto& expected : c["expected"]) {
      optim.step_flat(x, [&](const std::vector<double>& at) { return objective(a, b, at); });
      TensorData(values(expected), {x.size()}).assert_approx_eq(TensorData(x, {x.size()}), Tolerance{1e-9, 1e-9});
    }
  }
}

/// The same objective as a module on Autodiff<Cpu>: one parameter x [4].
template <class B> struct Point {
  Param<Tensor<B, 1>> x;
  SCORCH_MODULE(Point, x)
};

TEST(Optimizers, LbfgsStepsAModuleThroughAutodiff) {
  using AD = Autodiff<Cpu>;
  const auto& c = find_case("lbfgs_wolfe");
  auto a = Tensor<AD, 2>::from_data(conformance::decode_tensor(c["A"]).convert(DType::F32));
  auto b = Tensor<AD, 1>::from_data(conformance::decode_tensor(c["b"]).convert(DType::F32));
  Point<AD> model{Param(Tensor<AD, 1>::from_data(conformance::decode_tensor(c["x0"]).convert(DType::F32)))};
  auto optim = lbfgs_config(c["options"]).init();
  auto loss = [&](const Point<AD>& m) {
    auto r = a.matmul(m.x.val().unsqueeze_dim<2>(1)).squeeze_dim<1>(1) - b;
    return r.square().sum() + m.x.val().powi_scalar(4).sum() * 0.1;
  };
  for (const auto& expected : c["expected"]) {
    model = optim.step(model, loss);
    conformance::decode_tensor(expected)
        .convert(DType::F32)
        .assert_approx_eq(model.x.val().to_data(), Tolerance{1e-3, 1e-4});
  }
}

TEST(Optimizers, SkipsFrozenParametersAndThoseWithoutGradients) {
  TwoParams<Cpu> model{Param(Tensor<Cpu, 2>::ones({3, 4})), Param(Tensor<Cpu, 1>::ones({4}))};
  model.b = model.b.set_require_grad(false);
  auto optim = SgdConfig().init();
  GradientsParams grads;
  grads.register_grad(model.b.id(), Tensor<Cpu, 1>::ones({4}));
  auto next = optim.step(0.5, model, std::move(grads));
  EXPECT_TRUE(next.a.val().to_data() == model.a.val().to_data());
  EXPECT_TRUE(next.b.val().to_data() == model.b.val().to_data());
  EXPECT_EQ(optim.num_states(), 0u);
}

/// The batched step (one backend op per group of parameters) against each rule's own per-parameter step, over steps
/// where one parameter has no gradient (so its step count falls behind and it steps in a group of its own).
template <class Rule> void expect_batched_step_matches_rule(Rule rule, const char* name) {
  SCOPED_TRACE(name);
  TwoParams<Cpu> model{Param(Tensor<Cpu, 2>::random({3, 4}, Distribution::normal(0, 1))),
                       Param(Tensor<Cpu, 1>::random({4}, Distribution::normal(0, 1)))};
  OptimizerAdaptor<Rule> batched(rule);
  ParamState<Cpu> state_a, state_b;
  auto a = model.a.val();
  auto b = model.b.val();
  for (int t = 0; t < 4; ++t) {
    auto ga = Tensor<Cpu, 2>::random({3, 4}, Distribution::normal(0, 1));
    auto gb = Tensor<Cpu, 1>::random({4}, Distribution::normal(0, 1));
    GradientsParams grads;
    grads.register_grad(model.a.id(), ga);
    if (t != 1) grads.register_grad(model.b.id(), gb);
    double lr = 0.1 / (t + 1);
    model = batched.step(lr, model, std::move(grads));
    a = rule.step(lr, a, ga, state_a), ++state_a.step;
    if (t != 1) b = rule.step(lr, b, gb, state_b), ++state_b.step;
    model.a.val().to_data().assert_approx_eq(a.to_data(), Tolerance::rel_abs(1e-6, 1e-6));
    model.b.val().to_data().assert_approx_eq(b.to_data(), Tolerance::rel_abs(1e-6, 1e-6));
  }
}

TEST(Optimizers, BatchedStepsMatchTheRulesPerParameterSteps) {
  ASSERT_TRUE(Adam{}.batches() && AdamW{}.batches() && Sgd{}.batches());
  expect_batched_step_matches_rule(Adam{.weight_decay = WeightDecayConfig(0.01)}, "adam");
  expect_batched_step_matches_rule(AdamW{.weight_decay = 0.05}, "adamw");
  expect_batched_step_matches_rule(Sgd{WeightDecayConfig(1e-3), MomentumConfig()}, "sgd momentum");
  expect_batched_step_matches_rule(
      Sgd{std::nullopt, MomentumConfig().with_momentum(0.8).with_dampening(0.0).with_nesterov(true)}, "sgd nesterov");
  expect_batched_step_matches_rule(Sgd{}, "sgd");
  EXPECT_FALSE((Adam{.amsgrad = true, .weight_decay = std::nullopt}.batches()));
  EXPECT_FALSE(AdamW{.cautious_weight_decay = true}.batches());
}

/// A loaded state whose moment does not fit its parameter is refused before any state is touched.
TEST(Optimizers, BatchedStepRefusesAMismatchedStateAndKeepsIt) {
  TwoParams<Cpu> model{Param(Tensor<Cpu, 2>::ones({2, 3})), Param(Tensor<Cpu, 1>::ones({3}))};
  auto optim = AdamConfig().init();
  Record state = Record::map();
  state.set("step", int64_t{1});
  state.set("moment_1", Record(Tensor<Cpu, 1>::ones({5}).to_data()));
  state.set("moment_2", Record(Tensor<Cpu, 1>::ones({5}).to_data()));
  Record all = Record::map();
  all.set(model.b.id().to_string(), state);
  optim.load_record(all);
  GradientsParams grads;
  grads.register_grad(model.a.id(), Tensor<Cpu, 2>::ones({2, 3}));
  grads.register_grad(model.b.id(), Tensor<Cpu, 1>::ones({3}));
  EXPECT_THROW(optim.step(0.1, model, std::move(grads)), ShapeError);
  auto kept = optim.to_record().at(model.b.id().to_string());
  EXPECT_EQ(kept.at("moment_1").as_tensor().data.shape(), Shape({5}));
}

TEST(Optimizers, GradientsParamsFromAutodiffGradients) {
  using AD = Autodiff<Cpu>;
  TwoParams<AD> model{Param(Tensor<AD, 2>::ones({3, 4})), Param(Tensor<AD, 1>::ones({4}))};
  auto loss = (model.a.val() * 3.0).sum() + model.b.val().sum();
  auto grads = GradientsParams::from_grads(loss.backward(), model);
  EXPECT_EQ(grads.len(), 2u);
  auto ga = grads.get<Cpu, 2>(model.a.id());
  ASSERT_TRUE(ga.has_value());
  auto three = Tensor<Cpu, 2>::full({3, 4}, Scalar(3.0));
  EXPECT_TRUE(ga->to_data() == three.to_data());
  auto wrong_backend = [&] { (void)grads.get<Autodiff<Cpu>, 2>(model.a.id()); };
  EXPECT_THROW(wrong_backend(), DTypeError);
  GradientsAccumulator<TwoParams<AD>> acc;
  acc.accumulate(model, std::move(grads));
  acc.accumulate(model,
                 GradientsParams::from_grads(((model.a.val() * 3.0).sum() + model.b.val().sum()).backward(), model));
  auto summed = acc.grads();
  auto six = Tensor<Cpu, 2>::full({3, 4}, Scalar(6.0));
  auto sum_a = summed.get<Cpu, 2>(model.a.id());
  EXPECT_TRUE(sum_a->to_data() == six.to_data());
  EXPECT_TRUE(acc.grads().is_empty());
}

}  // namespace
}  // namespace scorch::optimtest
