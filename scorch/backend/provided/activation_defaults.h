#pragma once
// Provided activations, written with tensor ops; backends override them with fused kernels.
#include <cmath>
#include <numbers>

#include "scorch/core/scalar.h"

namespace scorch {
template <class B, class K> struct KindOps;
struct Float;
struct Int;
struct Bool;

namespace provided {

/// max(x, 0).
template <class B> auto float_relu(typename B::FloatTensor x) {
  using F = KindOps<B, Float>;
  auto mask = F::lower_elem(x, Scalar(0));
  return F::mask_fill(std::move(x), std::move(mask), Scalar(0));
}
/// x where x >= 0, slope * x elsewhere.
template <class B> auto float_leaky_relu(typename B::FloatTensor x, Scalar slope) {
  using F = KindOps<B, Float>;
  auto mask = F::lower_elem(x, Scalar(0));
  auto scaled = F::mul_scalar(x, slope);
  return F::mask_where(std::move(x), std::move(mask), std::move(scaled));
}
/// x * Φ(x), the exact (erf) form.
template <class B> auto float_gelu(typename B::FloatTensor x) {
  using F = KindOps<B, Float>;
  auto cdf =
      F::mul_scalar(F::add_scalar(F::erf(F::div_scalar(x, Scalar(std::numbers::sqrt2))), Scalar(1)), Scalar(0.5));
  return F::mul(std::move(x), std::move(cdf));
}
/// 1 / (1 + exp(-x)).
template <class B> auto float_sigmoid(typename B::FloatTensor x) {
  using F = KindOps<B, Float>;
  return F::recip(F::add_scalar(F::exp(F::neg(std::move(x))), Scalar(1)));
}
/// log(sigmoid(x)) = -(max(-x, 0) + log1p(exp(-|x|))), stable for large |x|.
template <class B> auto float_log_sigmoid(typename B::FloatTensor x) {
  using F = KindOps<B, Float>;
  auto tail = F::log1p(F::exp(F::neg(F::abs(x))));
  auto hinge = F::clamp_min(F::neg(std::move(x)), Scalar(0));
  return F::neg(F::add(std::move(hinge), std::move(tail)));
}
/// clamp(alpha * x + beta, 0, 1).
template <class B> auto float_hard_sigmoid(typename B::FloatTensor x, Scalar alpha, Scalar beta) {
  using F = KindOps<B, Float>;
  return F::clamp(F::add_scalar(F::mul_scalar(std::move(x), alpha), beta), Scalar(0), Scalar(1));
}
/// exp(x - max) / sum(exp(x - max)) along dim.
template <class B> auto float_softmax(typename B::FloatTensor x, size_t dim) {
  using F = KindOps<B, Float>;
  if (x.shape()[dim] == 0) return x;  // an empty dim has no max; its softmax is empty too
  auto shifted = F::exp(F::sub(x, F::max_dim(x, dim)));
  auto total = F::sum_dim(shifted, dim);
  return F::div(std::move(shifted), std::move(total));
}
/// x - max - log(sum(exp(x - max))) along dim.
template <class B> auto float_log_softmax(typename B::FloatTensor x, size_t dim) {
  using F = KindOps<B, Float>;
  if (x.shape()[dim] == 0) return x;
  auto shifted = F::sub(x, F::max_dim(x, dim));
  auto log_total = F::log(F::sum_dim(F::exp(shifted), dim));
  return F::sub(std::move(shifted), std::move(log_total));
}

}  // namespace provided
}  // namespace scorch
