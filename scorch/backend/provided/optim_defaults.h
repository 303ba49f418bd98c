#pragma once
// The provided optimizer updates: one Adam/AdamW step of a parameter, composed from elementwise ops (about 16
// kernels), and the multi-tensor Adam and SGD steps as loops over the parameters; Cuda overrides them with one
// kernel per parameter (adam) or a few launches per step (backends/cuda/kernels/optimizer.cu).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/core/dtype.h"
#include "scorch/core/error.h"
#include "scorch/core/scalar.h"

namespace scorch {
template <class B, class K> struct KindOps;
template <class B> struct ModuleOpsOf;
struct Float;

namespace provided {

/// grad' = grad + weight_decay·param unless decoupled; m' = β₁m + (1−β₁)grad';
/// v' = β₂v + (1−β₂)grad'²; d = (m' / (1−β₁^step)) / (√(v' / (1−β₂^step)) + ε);
/// param' = param − [decoupled: lr·weight_decay·param] − lr·d.
template <class B>
AdamUpdate<typename B::FloatTensor> module_adam_update(typename B::FloatTensor param, typename B::FloatTensor grad,
                                                      typename B::FloatTensor moment_1,
                                                      typename B::FloatTensor moment_2, double lr, double beta_1,
                                                      double beta_2, double epsilon, double weight_decay,
                                                      bool decoupled, double step) {
  using F = KindOps<B, Float>;
  if (!decoupled && weight_decay != 0) grad = F::add(grad, F::mul_scalar(param, Scalar(weight_decay)));
  auto m = F::add(F::mul_scalar(moment_1, Scalar(beta_1)), F::mul_scalar(grad, Scalar(1.0 - beta_1)));
  auto v = F::add(F::mul_scalar(moment_2, Scalar(beta_2)), F::mul_scalar(F::mul(grad, grad), Scalar(1.0 - beta_2)));
  double correction_1 = 1.0 - std::pow(beta_1, step), correction_2 = 1.0 - std::pow(beta_2, step);
  auto denominator = F::add_scalar(F::sqrt(F::div_scalar(v, Scalar(correction_2))), Scalar(epsilon));
  auto direction = F::div(F::div_scalar(m, Scalar(correction_1)), denominator);
  auto next = param;
  if (decoupled && weight_decay != 0) next = F::sub(next, F::mul_scalar(param, Scalar(lr * weight_decay)));
  next = F::sub(next, F::mul_scalar(direction, Scalar(lr)));
  return {std::move(next), std::move(m), std::move(v)};
}

/// Throws ShapeError (naming op and the list) unless `list` holds one tensor of each parameter's shape, and
/// DTypeError unless each parameter is a float tensor; op names the caller.
template <class T>
void check_update_list(const char* op, const std::vector<T>& params, const std::vector<T>& list, const char* name) {
  if (list.size() != params.size())
    throw ShapeError(op, std::to_string(params.size()) + " parameters and " + std::to_string(list.size()) + " " +
                             name + ": each parameter needs one");
  for (size_t i = 0; i < params.size(); ++i) {
    if (!is_float(params[i].dtype()))
      throw DTypeError(op, "parameter " + std::to_string(i) + " is " + std::string(dtype_name(params[i].dtype())) +
                               ", not float");
    if (!(list[i].shape() == params[i].shape()))
      throw ShapeError(op, std::string(name) + " " + std::to_string(i) + " is " + list[i].shape().to_string() +
                               ", its parameter " + params[i].shape().to_string());
  }
}

/// Throws unless the gradients and both moments lists hold one tensor of each parameter's shape (check_update_list).
template <class T>
void check_adam_lists(const char* op, const std::vector<T>& params, const std::vector<T>& grads,
                      const std::vector<T>& moments_1, const std::vector<T>& moments_2) {
  check_update_list(op, params, grads, "gradients");
  check_update_list(op, params, moments_1, "first moments");
  check_update_list(op, params, moments_2, "second moments");
}

/// Throws unless gradients (and velocities, when given: empty on the first step) hold one tensor of each parameter's
/// shape; returns whether velocities were given.
template <class T>
bool check_sgd_lists(const char* op, const std::vector<T>& params, const std::vector<T>& grads,
                     const std::vector<T>& velocities) {
  check_update_list(op, params, grads, "gradients");
  if (!velocities.empty()) check_update_list(op, params, velocities, "velocities");
  return !velocities.empty();
}

/// One parameter's Adam/AdamW step as a backend's multi-tensor step `many` over the list of one.
template <class T, class Many>
AdamUpdate<T> adam_update_as_list(Many many, T param, T grad, T moment_1, T moment_2, const AdamStep& step) {
  auto one = [](T x) { return std::vector<T>{std::move(x)}; };
  return many(one(std::move(param)), one(std::move(grad)), one(std::move(moment_1)), one(std::move(moment_2)),
              step)[0];
}

/// Adam/AdamW steps of several parameters (module_adam_update on each).
template <class B>
std::vector<AdamUpdate<typename B::FloatTensor>> module_adam_update_many(
    std::vector<typename B::FloatTensor> params, std::vector<typename B::FloatTensor> grads,
    std::vector<typename B::FloatTensor> moments_1, std::vector<typename B::FloatTensor> moments_2,
    const AdamStep& s) {
  check_adam_lists("adam_update_many", params, grads, moments_1, moments_2);
  std::vector<AdamUpdate<typename B::FloatTensor>> out;
  out.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i)
    out.push_back(ModuleOpsOf<B>::adam_update(std::move(params[i]), std::move(grads[i]), std::move(moments_1[i]),
                                              std::move(moments_2[i]), s.lr, s.beta_1, s.beta_2, s.epsilon,
                                              s.weight_decay, s.decoupled, s.step));
  return out;
}

/// One SGD step of a parameter (SgdStep); velocity is ignored without momentum and absent on the first step.
template <class B>
SgdUpdate<typename B::FloatTensor> sgd_update(const typename B::FloatTensor& param, typename B::FloatTensor grad,
                                             const std::optional<typename B::FloatTensor>& velocity,
                                             const SgdStep& s) {
  using F = KindOps<B, Float>;
  if (s.weight_decay != 0) grad = F::add(grad, F::mul_scalar(param, Scalar(s.weight_decay)));
  std::optional<typename B::FloatTensor> v;
  if (s.with_momentum) {
    v = velocity ? F::add(F::mul_scalar(*velocity, Scalar(s.momentum)), F::mul_scalar(grad, Scalar(1 - s.dampening)))
                 : grad;
    grad = s.nesterov ? F::add(grad, F::mul_scalar(*v, Scalar(s.momentum))) : *v;
  }
  return {F::sub(param, F::mul_scalar(grad, Scalar(s.lr))), std::move(v)};
}

/// SGD steps of several parameters; velocities is empty or one per parameter.
template <class B>
std::vector<SgdUpdate<typename B::FloatTensor>> module_sgd_update_many(std::vector<typename B::FloatTensor> params,
                                                                      std::vector<typename B::FloatTensor> grads,
                                                                      std::vector<typename B::FloatTensor> velocities,
                                                                      const SgdStep& s) {
  check_sgd_lists("sgd_update_many", params, grads, velocities);
  std::vector<SgdUpdate<typename B::FloatTensor>> out;
  out.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    auto velocity = velocities.empty() ? std::nullopt : std::optional(std::move(velocities[i]));
    out.push_back(sgd_update<B>(params[i], std::move(grads[i]), velocity, s));
  }
  return out;
}

}  // namespace provided
}  // namespace scorch
