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
  static constexpr bool kBatched = true;
  /// Steps every parameter in one backend op (module_sgd_update_many), those with a velocity apart.
  bool batches() const { return true; }
  template <class B> int64_t group_key(const ParamState<B>& s) const {
    return momentum && s.tensors.count("velocity") ? 1 : 0;
  }
  template <class B>
  detail::BatchStep<B> step_many(double lr, std::vector<typename B::FloatTensor> params,
                         std::vector<typename B::FloatTensor> grads, const std::vector<ParamState<B>*>& states) const {
    SgdStep s{.lr = lr, .weight_decay = weight_decay ? weight_decay->penalty : 0.0};
    if (momentum)
      s.momentum = momentum->momentum, s.dampening = momentum->dampening, s.with_momentum = true,
      s.nesterov = momentum->nesterov;
    std::vector<typename B::FloatTensor> velocities;
    if (!states.empty() && group_key(*states[0]))
      for (size_t i = 0; i < params.size(); ++i) velocities.push_back(states[i]->tensors.at("velocity"));
    auto r = ModuleOpsOf<B>::sgd_update_many(std::move(params), std::move(grads), std::move(velocities), s);
    detail::BatchStep<B> out;
    for (auto& u : r) {
      out.params.push_back(std::move(u.param));
      out.states.emplace_back();
      if (u.velocity) out.states.back().emplace_back("velocity", std::move(*u.velocity));
    }
    return out;
  }
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
