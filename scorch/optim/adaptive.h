#pragma once
// AdaGrad, RmsProp and Adan (per-parameter adaptive rules).
#include <cmath>

#include "scorch/optim/sgd.h"

namespace scorch::optim {

/// AdaGrad: θ −= lr/(1 + (t−1)·lr_decay) · g / (√Σg² + ε).
struct AdaGrad {
  static constexpr bool capturable = false;  ///< its step constants are computed on the host
  double lr_decay = 0.0, epsilon = 1e-5;
  std::optional<WeightDecayConfig> weight_decay;
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    auto g = detail::with_decay(grad, param, weight_decay);
    auto prev = state.template get<D>("sum");
    auto sum = prev ? *prev + g.square() : g.square();
    state.set("sum", sum);
    double clr = lr / (1.0 + static_cast<double>(state.step) * lr_decay);
    return param - g / (sum.sqrt() + epsilon) * clr;
  }
};
struct AdaGradConfig {
  double lr_decay = 0.0, epsilon = 1e-5;
  std::optional<WeightDecayConfig> weight_decay;
  std::optional<GradientClippingConfig> grad_clipping;
  SCORCH_CONFIG(AdaGradConfig, (), (lr_decay, epsilon, weight_decay, grad_clipping))
  OptimizerAdaptor<AdaGrad> init() const {
    return OptimizerAdaptor<AdaGrad>(AdaGrad{lr_decay, epsilon, weight_decay}, grad_clipping);
  }
};

/// RmsProp (PyTorch's formulation): a running mean of g², optionally centered, with momentum.
struct RmsProp {
  double alpha = 0.99, momentum = 0.9, epsilon = 1e-5;
  bool centered = false;
  std::optional<WeightDecayConfig> weight_decay;
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    auto g = detail::with_decay(grad, param, weight_decay);
    auto sq_prev = state.template get<D>("square_avg");
    auto sq = sq_prev ? *sq_prev * alpha + g.square() * (1.0 - alpha) : g.square() * (1.0 - alpha);
    state.set("square_avg", sq);
    auto var = sq;
    if (centered) {
      auto ga_prev = state.template get<D>("grad_avg");
      auto ga = ga_prev ? *ga_prev * alpha + g * (1.0 - alpha) : g * (1.0 - alpha);
      state.set("grad_avg", ga);
      var = sq - ga.square();
    }
    auto scaled = g / (var.sqrt() + epsilon);
    if (momentum > 0) {
      auto buf_prev = state.template get<D>("momentum");
      auto buf = buf_prev ? *buf_prev * momentum + scaled : scaled;
      state.set("momentum", buf);
      return param - buf * lr;
    }
    return param - scaled * lr;
  }
};
struct RmsPropConfig {
  double alpha = 0.99, momentum = 0.9, epsilon = 1e-5;
  bool centered = false;
  std::optional<WeightDecayConfig> weight_decay;
  std::optional<GradientClippingConfig> grad_clipping;
  SCORCH_CONFIG(RmsPropConfig, (), (alpha, momentum, epsilon, centered, weight_decay, grad_clipping))
  OptimizerAdaptor<RmsProp> init() const {
    return OptimizerAdaptor<RmsProp>(RmsProp{alpha, momentum, epsilon, centered, weight_decay}, grad_clipping);
  }
};

/// Adan (Xie et al.): Nesterov-style moments of g and of its change; no_prox selects decoupled decay.
struct Adan {
  static constexpr bool capturable = false;  ///< its step constants are computed on the host
  double beta_1 = 0.98, beta_2 = 0.92, beta_3 = 0.99, epsilon = 1e-8, weight_decay = 0.0;
  bool no_prox = false;
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    auto g_prev = state.template get<D>("previous_grad");
    auto diff = g_prev ? grad - *g_prev : grad * 0.0;
    auto blend = [&](const char* name, const Tensor<B, D>& x, double beta) {
      auto prev = state.template get<D>(name);
      auto v = prev ? *prev * beta + x * (1.0 - beta) : x * (1.0 - beta);
      state.set(name, v);
      return v;
    };
    auto m = blend("moment", grad, beta_1);
    auto d = blend("moment_diff", diff, beta_2);
    auto n = blend("moment_sq", (grad + diff * beta_2).square(), beta_3);
    state.set("previous_grad", grad);
    double t = static_cast<double>(state.step + 1);
    double bc1 = 1.0 - std::pow(beta_1, t), bc2 = 1.0 - std::pow(beta_2, t), bc3 = 1.0 - std::pow(beta_3, t);
    auto update = (m / bc1 + d * (beta_2 / bc2)) / ((n / bc3).sqrt() + epsilon);
    if (no_prox) return param * (1.0 - lr * weight_decay) - update * lr;
    return (param - update * lr) / (1.0 + lr * weight_decay);
  }
};
struct AdanConfig {
  double beta_1 = 0.98, beta_2 = 0.92, beta_3 = 0.99, epsilon = 1e-8, weight_decay = 0.0;
  bool no_prox = false;
  std::optional<GradientClippingConfig> grad_clipping;
  SCORCH_CONFIG(AdanConfig, (), (beta_1, beta_2, beta_3, epsilon, weight_decay, no_prox, grad_clipping))
  OptimizerAdaptor<Adan> init() const {
    return OptimizerAdaptor<Adan>(Adan{beta_1, beta_2, beta_3, epsilon, weight_decay, no_prox}, grad_clipping);
  }
};

}  // namespace scorch::optim
