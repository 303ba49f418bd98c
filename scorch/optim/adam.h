#pragma once
// Adam (L2 weight decay on the gradient) and AdamW (decoupled decay), both with AMSGrad.
#include <cmath>

#include "scorch/optim/sgd.h"

namespace scorch::optim {

namespace detail {
/// The bias-corrected Adam direction m̂ / (√v̂ + ε) (v̂ from the running maximum under AMSGrad); updates the moments.
template <class B, size_t D> Tensor<B, D> adam_direction(const Tensor<B, D>& g, ParamState<B>& state, double beta_1,
                                                         double beta_2, double epsilon, bool amsgrad) {
  auto m_prev = state.template get<D>("moment_1"), v_prev = state.template get<D>("moment_2");
  auto m = m_prev ? *m_prev * beta_1 + g * (1.0 - beta_1) : g * (1.0 - beta_1);
  auto v = v_prev ? *v_prev * beta_2 + g.square() * (1.0 - beta_2) : g.square() * (1.0 - beta_2);
  state.set("moment_1", m);
  state.set("moment_2", v);
  if (amsgrad) {
    auto v_max_prev = state.template get<D>("max_moment_2");
    v = v_max_prev ? v_max_prev->max_pair(v) : v;
    state.set("max_moment_2", v);
  }
  double t = static_cast<double>(state.step + 1);
  double bc1 = 1.0 - std::pow(beta_1, t), bc2 = 1.0 - std::pow(beta_2, t);
  return (m / bc1) / ((v / bc2).sqrt() + epsilon);
}
}  // namespace detail

/// The Adam rule.
struct Adam {
  double beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-5;
  bool amsgrad = false;
  std::optional<WeightDecayConfig> weight_decay;
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    auto g = detail::with_decay(grad, param, weight_decay);
    return param - detail::adam_direction(g, state, beta_1, beta_2, epsilon, amsgrad) * lr;
  }
};

/// Adam settings (Burn's defaults: ε = 1e-5).
struct AdamConfig {
  double beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-5;
  bool amsgrad = false;
  std::optional<WeightDecayConfig> weight_decay;
  std::optional<GradientClippingConfig> grad_clipping;
  SCORCH_CONFIG(AdamConfig, (), (beta_1, beta_2, epsilon, amsgrad, weight_decay, grad_clipping))
  OptimizerAdaptor<Adam> init() const {
    return OptimizerAdaptor<Adam>(Adam{beta_1, beta_2, epsilon, amsgrad, weight_decay}, grad_clipping);
  }
};

/// The AdamW rule: θ·(1 − lr·wd) then the Adam step; cautious decay skips elements whose sign disagrees with the
/// update.
struct AdamW {
  double beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-5, weight_decay = 1e-4;
  bool cautious_weight_decay = false, amsgrad = false;
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    auto direction = detail::adam_direction(grad, state, beta_1, beta_2, epsilon, amsgrad);
    auto decay = param * (lr * weight_decay);
    if (cautious_weight_decay) decay = decay.mask_fill((direction * param).lower_equal_elem(0.0), 0.0);
    return param - decay - direction * lr;
  }
};

/// AdamW settings.
struct AdamWConfig {
  double beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-5, weight_decay = 1e-4;
  bool cautious_weight_decay = false, amsgrad = false;
  std::optional<GradientClippingConfig> grad_clipping;
  SCORCH_CONFIG(AdamWConfig, (), (beta_1, beta_2, epsilon, weight_decay, cautious_weight_decay, amsgrad, grad_clipping))
  OptimizerAdaptor<AdamW> init() const {
    return OptimizerAdaptor<AdamW>(AdamW{beta_1, beta_2, epsilon, weight_decay, cautious_weight_decay, amsgrad},
                                   grad_clipping);
  }
};

}  // namespace scorch::optim
