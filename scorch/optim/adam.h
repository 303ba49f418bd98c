#pragma once
// Adam (L2 weight decay on the gradient) and AdamW (decoupled decay), both with AMSGrad.
#include <array>
#include <cmath>
#include <utility>

#include "scorch/optim/sgd.h"
#include "scorch/tensor/functional.h"

namespace scorch::optim {

namespace detail {
/// 1 − β^t (in dtype) for the step t counted on the device (state "step_count", shape [1, ..., 1]); advances t.
template <class B, size_t D>
std::pair<Tensor<B, D>, Tensor<B, D>> device_bias_corrections(ParamState<B>& state, double beta_1, double beta_2,
                                                              const typename B::Device& device, DType dtype) {
  std::array<size_t, D> ones;
  ones.fill(1);
  auto previous = state.template get<D>("step_count");  // f64: 1 − β^t in f32 would lose digits as β^t nears 1
  auto t = previous ? *previous + 1.0
                    : Tensor<B, D>::full(Shape(ones), static_cast<double>(state.step + 1), device, DType::F64);
  state.set("step_count", t);
  auto correction = [&](double beta) { return (-(t * std::log(beta)).exp() + 1.0).cast(dtype); };
  return {correction(beta_1), correction(beta_2)};
}

/// The whole step as one backend op (module_adam_update: one kernel per parameter on Cuda), for the options it
/// covers (no AMSGrad, step counts on the host, no cautious decay); o's lr and step are set here.
template <class B, size_t D>
Tensor<B, D> fused_adam_step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state,
                             functional::AdamUpdateOptions o) {
  auto m = state.template get<D>("moment_1"), v = state.template get<D>("moment_2");
  o.lr = lr;
  o.step = static_cast<double>(state.step + 1);
  auto r = functional::adam_update(param, grad, m ? *m : param.zeros_like(), v ? *v : param.zeros_like(), o);
  state.set("moment_1", r.moment_1);
  state.set("moment_2", r.moment_2);
  return r.param;
}

/// The step of a batch of parameters with one step count as one backend op (module_adam_update_many: a few launches
/// on Cuda); the new moments are fresh tensors, set in the states when the adaptor commits.
template <class B>
BatchStep<B> fused_adam_many(double lr, std::vector<typename B::FloatTensor> params,
                             std::vector<typename B::FloatTensor> grads, const std::vector<ParamState<B>*>& states,
                             AdamStep s) {
  std::vector<typename B::FloatTensor> m, v;
  for (size_t i = 0; i < params.size(); ++i) {
    m.push_back(state_or_zeros(*states[i], "moment_1", params[i]));
    v.push_back(state_or_zeros(*states[i], "moment_2", params[i]));
  }
  s.lr = lr;
  s.step = states.empty() ? 1.0 : static_cast<double>(states[0]->step + 1);
  auto r = ModuleOpsOf<B>::adam_update_many(std::move(params), std::move(grads), std::move(m), std::move(v), s);
  BatchStep<B> out;
  for (auto& u : r) {
    out.params.push_back(std::move(u.param));
    out.states.push_back({{"moment_1", std::move(u.moment_1)}, {"moment_2", std::move(u.moment_2)}});
  }
  return out;
}

/// The bias-corrected Adam direction m̂ / (√v̂ + ε) (v̂: the running maximum under AMSGrad); updates the moments.
/// capturable counts steps on the device, so a replayed step graph advances the corrections.
template <class B, size_t D> Tensor<B, D> adam_direction(const Tensor<B, D>& g, ParamState<B>& state, double beta_1,
                                                         double beta_2, double epsilon, bool amsgrad, bool capturable) {
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
  if (capturable) {
    auto [bc1, bc2] = device_bias_corrections<B, D>(state, beta_1, beta_2, g.device(), g.dtype());
    return (m / bc1) / ((v / bc2).sqrt() + epsilon);
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
  bool capturable = false;  ///< counts steps on the device (PyTorch's capturable), as a replayed StepGraph needs
  static constexpr bool kBatched = true;
  /// Steps every parameter in one backend op (grouped by step count) unless AMSGrad or capturable is on.
  bool batches() const { return !amsgrad && !capturable; }
  template <class B> int64_t group_key(const ParamState<B>& s) const { return s.step; }
  template <class B>
  detail::BatchStep<B> step_many(double lr, std::vector<typename B::FloatTensor> params,
                         std::vector<typename B::FloatTensor> grads, const std::vector<ParamState<B>*>& states) const {
    return detail::fused_adam_many<B>(lr, std::move(params), std::move(grads), states,
                                      {.beta_1 = beta_1, .beta_2 = beta_2, .epsilon = epsilon,
                                       .weight_decay = weight_decay ? weight_decay->penalty : 0.0});
  }
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    if (!amsgrad && !capturable)
      return detail::fused_adam_step(lr, param, grad, state,
                                     {.beta_1 = beta_1, .beta_2 = beta_2, .epsilon = epsilon,
                                      .weight_decay = weight_decay ? weight_decay->penalty : 0.0, .decoupled = false});
    auto g = detail::with_decay(grad, param, weight_decay);
    return param - detail::adam_direction(g, state, beta_1, beta_2, epsilon, amsgrad, capturable) * lr;
  }
};

/// Adam settings (Burn's defaults: ε = 1e-5; capturable: the step count on the device, for train::StepGraph).
struct AdamConfig {
  double beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-5;
  bool amsgrad = false;
  std::optional<WeightDecayConfig> weight_decay;
  std::optional<GradientClippingConfig> grad_clipping;
  bool capturable = false;
  SCORCH_CONFIG(AdamConfig, (), (beta_1, beta_2, epsilon, amsgrad, weight_decay, grad_clipping, capturable))
  OptimizerAdaptor<Adam> init() const {
    return OptimizerAdaptor<Adam>(Adam{beta_1, beta_2, epsilon, amsgrad, weight_decay, capturable}, grad_clipping);
  }
};

/// The AdamW rule: θ·(1 − lr·wd) then the Adam step; cautious decay skips elements whose sign disagrees with the
/// update.
struct AdamW {
  double beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-5, weight_decay = 1e-4;
  bool cautious_weight_decay = false, amsgrad = false;
  bool capturable = false;  ///< counts steps on the device, as a replayed StepGraph needs
  static constexpr bool kBatched = true;
  /// Steps every parameter in one backend op (grouped by step count) unless AMSGrad, capturable or cautious decay
  /// is on.
  bool batches() const { return !amsgrad && !capturable && !cautious_weight_decay; }
  template <class B> int64_t group_key(const ParamState<B>& s) const { return s.step; }
  template <class B>
  detail::BatchStep<B> step_many(double lr, std::vector<typename B::FloatTensor> params,
                         std::vector<typename B::FloatTensor> grads, const std::vector<ParamState<B>*>& states) const {
    return detail::fused_adam_many<B>(
        lr, std::move(params), std::move(grads), states,
        {.beta_1 = beta_1, .beta_2 = beta_2, .epsilon = epsilon, .weight_decay = weight_decay, .decoupled = true});
  }
  template <class B, size_t D>
  Tensor<B, D> step(double lr, const Tensor<B, D>& param, const Tensor<B, D>& grad, ParamState<B>& state) const {
    if (!amsgrad && !capturable && !cautious_weight_decay)
      return detail::fused_adam_step(
          lr, param, grad, state,
          {.beta_1 = beta_1, .beta_2 = beta_2, .epsilon = epsilon, .weight_decay = weight_decay, .decoupled = true});
    auto direction = detail::adam_direction(grad, state, beta_1, beta_2, epsilon, amsgrad, capturable);
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
  bool capturable = false;
  SCORCH_CONFIG(AdamWConfig, (),
                (beta_1, beta_2, epsilon, weight_decay, cautious_weight_decay, amsgrad, grad_clipping, capturable))
  OptimizerAdaptor<AdamW> init() const {
    return OptimizerAdaptor<AdamW>(
        AdamW{beta_1, beta_2, epsilon, weight_decay, cautious_weight_decay, amsgrad, capturable}, grad_clipping);
  }
};

}  // namespace scorch::optim
