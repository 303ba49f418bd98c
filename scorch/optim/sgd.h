#pragma once
// Stochastic gradient descent with optional L2 weight decay and (Nesterov) momentum.
#include "scorch/optim/optimizer.h"

namespace scorch::optim {

/// L2 penalty: the gradient gains penalty·θ.
struct WeightDecayConfig {
  double penalty;
  SCORCH_CONFIG(WeightDecayConfig, (penalty), ())
};

/// Momentum: v = momentum·v + (1 − dampening)·g (first step: v = g); Nesterov steps along g + momentum·v.
struct MomentumConfig {
  double momentum = 0.9, dampening = 0.1;
  bool nesterov = false;
  SCORCH_CONFIG(MomentumConfig, (), (momentum, dampening, nesterov))
};

namespace detail {
/// g + penalty·θ when weight decay is set.
template <class B, size_t D> Tensor<B, D> with_decay(const Tensor<B, D>& grad, const Tensor<B, D>& param,
                                                     const std::optional<WeightDecayConfig>& wd) {
  return wd ? grad + param * wd->penalty : grad;
}
}  // namespace detail

/// The SGD rule.
struct Sgd {
  std::optional<WeightDecayConfig> weight_decay;
  std::optional<MomentumConfig> momentum;
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    auto g = detail::with_decay(grad, param, weight_decay);
    if (momentum) {
      auto prev = state.template get<D>("velocity");
      auto v = prev ? *prev * momentum->momentum + g * (1.0 - momentum->dampening) : g;
      state.set("velocity", v);
      g = momentum->nesterov ? g + v * momentum->momentum : v;
    }
    return param - g * lr;
  }
};

/// SGD settings.
struct SgdConfig {
  std::optional<WeightDecayConfig> weight_decay;
  std::optional<MomentumConfig> momentum;
  std::optional<GradientClippingConfig> gradient_clipping;
  SCORCH_CONFIG(SgdConfig, (), (weight_decay, momentum, gradient_clipping))
  OptimizerAdaptor<Sgd> init() const { return OptimizerAdaptor<Sgd>(Sgd{weight_decay, momentum}, gradient_clipping); }
};

}  // namespace scorch::optim
