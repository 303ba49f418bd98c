#pragma once
// The provided optimizer update: one Adam/AdamW step of a parameter, composed from elementwise ops (about 16
// kernels); Cuda overrides it with one kernel (backends/cuda/kernels/adam.cu).
#include <cmath>

#include "scorch/backend/module_options.h"
#include "scorch/core/scalar.h"

namespace scorch {
template <class B, class K> struct KindOps;
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

}  // namespace provided
}  // namespace scorch
