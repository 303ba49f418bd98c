#pragma once
// Activation functions (scorch::activation), as in the Burn Book's table.
// Those in the backend's activation group run fused kernels; the rest compose tensor ops.
#include <cmath>

#include "scorch/tensor/tensor.h"

namespace scorch::activation {

template <class B, size_t D> using FloatTensor = Tensor<B, D, Float>;
template <class B, size_t D> FloatTensor<B, D> wrap(typename B::FloatTensor p) {
  return FloatTensor<B, D>(std::move(p));
}

/// max(x, 0).
template <class B, size_t D> FloatTensor<B, D> relu(FloatTensor<B, D> x) {
  return wrap<B, D>(KindOps<B, Float>::relu(std::move(x).into_primitive()));
}
/// min(max(x, 0), 6).
template <class B, size_t D> FloatTensor<B, D> relu6(const FloatTensor<B, D>& x) { return x.clamp(0.0, 6.0); }
/// x for x >= 0, slope * x below.
template <class B, size_t D> FloatTensor<B, D> leaky_relu(FloatTensor<B, D> x, double slope = 0.01) {
  return wrap<B, D>(KindOps<B, Float>::leaky_relu(std::move(x).into_primitive(), Scalar(slope)));
}
/// x for x > 0, alpha * x elsewhere (as PyTorch, so alpha = ±inf gives NaN at 0), with alpha broadcast (one value or
/// one per channel, dim 1).
template <class B, size_t D> FloatTensor<B, D> prelu(const FloatTensor<B, D>& x, const FloatTensor<B, 1>& alpha) {
  Shape s;
  for (size_t i = 0; i < D; ++i) s.push_back(i == 1 && D > 1 ? alpha.shape()[0] : 1);
  if (alpha.shape()[0] != 1 && (D < 2 || alpha.shape()[0] != x.shape()[1]))
    throw ShapeError("prelu", "alpha " + alpha.shape().to_string() + " must have 1 value or one per channel of " +
                                  x.shape().to_string());
  auto a = alpha.template reshape<D>(s);
  return x.mask_where(x.lower_equal_elem(0.0), x.mul(a.expand_to(x.shape())));
}
/// x * Φ(x) (erf form).
template <class B, size_t D> FloatTensor<B, D> gelu(FloatTensor<B, D> x) {
  return wrap<B, D>(KindOps<B, Float>::gelu(std::move(x).into_primitive()));
}
/// The tanh approximation of gelu.
template <class B, size_t D> FloatTensor<B, D> gelu_approximate(const FloatTensor<B, D>& x) {
  auto inner = (x + x.powf_scalar(3.0) * 0.044715) * std::sqrt(2.0 / M_PI);
  return x * 0.5 * (inner.tanh() + 1.0);
}
/// 1 / (1 + exp(-x)).
template <class B, size_t D> FloatTensor<B, D> sigmoid(FloatTensor<B, D> x) {
  return wrap<B, D>(KindOps<B, Float>::sigmoid(std::move(x).into_primitive()));
}
/// log(sigmoid(x)), stable.
template <class B, size_t D> FloatTensor<B, D> log_sigmoid(FloatTensor<B, D> x) {
  return wrap<B, D>(KindOps<B, Float>::log_sigmoid(std::move(x).into_primitive()));
}
/// clamp(alpha * x + beta, 0, 1) (torch's hardsigmoid is alpha = 1/6, beta = 0.5).
template <class B, size_t D>
FloatTensor<B, D> hard_sigmoid(FloatTensor<B, D> x, double alpha = 0.2, double beta = 0.5) {
  return wrap<B, D>(KindOps<B, Float>::hard_sigmoid(std::move(x).into_primitive(), Scalar(alpha), Scalar(beta)));
}
/// x * sigmoid(x).
template <class B, size_t D> FloatTensor<B, D> silu(const FloatTensor<B, D>& x) { return x * sigmoid<B, D>(x); }
/// log(1 + exp(beta * x)) / beta, linear above threshold like torch.
template <class B, size_t D>
FloatTensor<B, D> softplus(const FloatTensor<B, D>& x, double beta = 1.0, double threshold = 20.0) {
  auto bx = x * beta;
  auto soft = (bx.clamp_max(threshold).exp() + 1.0).log() / beta;
  return soft.mask_where(bx.greater_elem(threshold), x);
}
/// x * tanh(softplus(x)).
template <class B, size_t D> FloatTensor<B, D> mish(const FloatTensor<B, D>& x) { return x * softplus<B, D>(x).tanh(); }
/// x * relu6(x + 3) / 6.
template <class B, size_t D> FloatTensor<B, D> hard_swish(const FloatTensor<B, D>& x) {
  return x * (x + 3.0).clamp(0.0, 6.0) / 6.0;
}
/// tanh(x).
template <class B, size_t D> FloatTensor<B, D> tanh(FloatTensor<B, D> x) { return std::move(x).tanh(); }
/// x - tanh(x).
template <class B, size_t D> FloatTensor<B, D> tanhshrink(const FloatTensor<B, D>& x) { return x - x.tanh(); }
/// clamp(x, min, max); min > max is a ValueError, as PyTorch's Hardtanh.
template <class B, size_t D>
FloatTensor<B, D> hardtanh(const FloatTensor<B, D>& x, double min = -1.0, double max = 1.0) {
  if (min > max) throw ValueError("hardtanh", "min " + std::to_string(min) + " exceeds max " + std::to_string(max));
  return x.clamp(min, max);
}
/// x / (1 + |x|).
template <class B, size_t D> FloatTensor<B, D> softsign(const FloatTensor<B, D>& x) { return x / (x.abs() + 1.0); }
/// x for x > 0, alpha * (exp(x) - 1) below.
template <class B, size_t D> FloatTensor<B, D> elu(const FloatTensor<B, D>& x, double alpha = 1.0) {
  return x.mask_where(x.lower_equal_elem(0.0), (x.exp() - 1.0) * alpha);
}
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
template <class B, size_t D> FloatTensor<B, D> celu(const FloatTensor<B, D>& x, double alpha = 1.0) {
  return x.mask_where(x.lower_equal_elem(0.0), ((x / alpha).exp() - 1.0) * alpha);
}
/// scale * elu(x, alpha) with the self-normalizing constants.
template <class B, size_t D> FloatTensor<B, D> selu(const FloatTensor<B, D>& x) {
  constexpr double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
  return elu<B, D>(x, alpha) * scale;
}
/// x where x > threshold, value elsewhere (torch.nn.functional.threshold).
template <class B, size_t D> FloatTensor<B, D> threshold(const FloatTensor<B, D>& x, double threshold, double value) {
  return x.mask_fill(x.lower_equal_elem(threshold), value);
}
/// x where x > threshold, 0 elsewhere.
template <class B, size_t D> FloatTensor<B, D> thresholded_relu(const FloatTensor<B, D>& x, double threshold = 1.0) {
  return activation::threshold<B, D>(x, threshold, 0.0);
}
/// Gated linear unit: first half of dim times sigmoid of the second half.
template <class B, size_t D> FloatTensor<B, D> glu(const FloatTensor<B, D>& x, int64_t dim = -1) {
  size_t d = check::dim("glu", dim, D);
  if (x.shape()[d] % 2 != 0)
    throw ShapeError("glu", "dim " + std::to_string(d) + " of " + x.shape().to_string() + " must be even");
  size_t half = x.shape()[d] / 2;
  return x.narrow(static_cast<int64_t>(d), 0, half) * sigmoid<B, D>(x.narrow(static_cast<int64_t>(d), half, half));
}
/// x where |x| > lambda, 0 elsewhere.
template <class B, size_t D> FloatTensor<B, D> hard_shrink(const FloatTensor<B, D>& x, double lambda = 0.5) {
  return x.mask_fill(x.abs().lower_equal_elem(lambda), 0.0);
}
/// x - lambda above lambda, x + lambda below -lambda, 0 between.
template <class B, size_t D> FloatTensor<B, D> soft_shrink(const FloatTensor<B, D>& x, double lambda = 0.5) {
  return (x - x.clamp(-lambda, lambda));
}
/// x - bias*sign(x) where |x| > lambda, 0 elsewhere (Burn's general shrink).
template <class B, size_t D> FloatTensor<B, D> shrink(const FloatTensor<B, D>& x, double lambda, double bias) {
  return (x - x.sign() * bias).mask_fill(x.abs().lower_equal_elem(lambda), 0.0);
}
/// exp(x) / sum(exp(x)) along dim (in f32 inside an autocast scope).
template <class B, size_t D> FloatTensor<B, D> softmax(FloatTensor<B, D> x, int64_t dim) {
  size_t d = check::dim("softmax", dim, D);
  return wrap<B, D>(KindOps<B, Float>::softmax(amp::to_full(std::move(x)).into_primitive(), d));
}
/// softmax of -x along dim.
template <class B, size_t D> FloatTensor<B, D> softmin(const FloatTensor<B, D>& x, int64_t dim) {
  return softmax<B, D>(-x, dim);
}
/// log(softmax(x)) along dim, stable (in f32 inside an autocast scope).
template <class B, size_t D> FloatTensor<B, D> log_softmax(FloatTensor<B, D> x, int64_t dim) {
  size_t d = check::dim("log_softmax", dim, D);
  return wrap<B, D>(KindOps<B, Float>::log_softmax(amp::to_full(std::move(x)).into_primitive(), d));
}
/// exp(x - max) / (1 + sum(exp(x - max))) along dim: attention that may attend to nothing.
template <class B, size_t D> FloatTensor<B, D> quiet_softmax(const FloatTensor<B, D>& x, int64_t dim) {
  auto shifted = x - x.max_dim(dim).detach();
  auto e = shifted.exp();
  return e / (e.sum_dim(dim) + 1.0);
}

}  // namespace scorch::activation
