#pragma once
// Provided fused ops (attention with its statistics and its backward, layer norm, RMS norm, their
// backwards), composed from other ops in f32 for f16/bf16 inputs (f64 for f64), results in the inputs'
// dtype; linear and its backward run in their inputs' dtype, as the ops they replace. Backends override
// them with single kernels; Autodiff records each as one node whose backward is the matching *_backward op.
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/backend/provided/module_defaults.h"
#include "scorch/core/dtype.h"
#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"

namespace scorch {
template <class B, class K> struct KindOps;
struct Float;

namespace provided {
namespace fused_detail {

/// The dtype the composition computes in: f64 for f64, f32 otherwise.
inline DType wide(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }
/// x in dtype d (x itself when it has it).
template <class B, class T> T as(const T& x, DType d) { return x.dtype() == d ? x : KindOps<B, Float>::cast(x, d); }
/// An optional x in dtype d.
template <class B, class T> std::optional<T> as(const std::optional<T>& x, DType d) {
  return x ? std::optional<T>(as<B>(*x, d)) : std::nullopt;
}

/// A [n] vector (gamma, beta) as [1, ..., 1, n] of rank r, broadcastable against the input.
template <class B, class T> T as_row(const T& v, size_t rank) {
  std::vector<size_t> dims(rank, 1);
  if (rank) dims.back() = v.shape()[0];
  return KindOps<B, Float>::reshape(v, Shape(dims));
}
/// The sum of x over every dim but the last, as a [n] vector (the gradient of gamma or beta).
template <class B, class T> T sum_to_last(const T& x) {
  using F = KindOps<B, Float>;
  size_t n = x.shape()[x.shape().rank() - 1], rows = n ? x.shape().num_elements() / n : 0;
  return F::reshape(F::sum_dim(F::reshape(x, Shape{rows, n}), 0), Shape{n});
}
/// 1 / sqrt(mean of x² over the last dim + epsilon), the last dim kept with size 1.
template <class B, class T> T inverse_rms(const T& x, double epsilon) {
  using F = KindOps<B, Float>;
  auto mean_square = F::mean_dim(F::mul(x, x), x.shape().rank() - 1);
  return F::recip(F::sqrt(F::add_scalar(std::move(mean_square), Scalar(epsilon))));
}

/// shape with its last dim 1.
inline Shape keep_last(Shape shape) {
  shape[shape.rank() - 1] = 1;
  return shape;
}

}  // namespace fused_detail

/// Attention's output and the log-sum-exp of each query's masked scaled scores ([batch, heads, seq_q], f32 for
/// f16/bf16 inputs; -inf for a query whose keys are all masked, whose output is then NaN).
template <class B> auto module_attention_with_stats(const typename B::FloatTensor& q, const typename B::FloatTensor& k,
                                                    const typename B::FloatTensor& v,
                                                    const std::optional<typename B::BoolTensor>& mask, double scale,
                                                    bool causal, const AttentionDropout& dropout) {
  using F = KindOps<B, Float>;
  using fused_detail::as;
  using fused_detail::keep_last;
  size_t r = q.shape().rank();
  DType d = q.dtype(), w = fused_detail::wide(d);
  auto scores = attention_detail::masked_scores<B>(as<B>(q, w), as<B>(k, w), mask, scale, causal);
  // The row's peak, finite where every key is masked (its exponentials are then 0, its log-sum-exp -inf).
  // With no keys (an empty last dim) max has no identity: the peak is then lowest, as for a fully masked row.
  auto peak = scores.shape()[r - 1] == 0
                  ? F::full(keep_last(scores.shape()), Scalar(std::numeric_limits<float>::lowest()), scores.device(), w)
                  : F::clamp_min(F::max_dim(scores, r - 1), Scalar(std::numeric_limits<float>::lowest()));
  auto e = F::exp(F::sub(std::move(scores), peak));
  auto total = F::sum_dim(e, r - 1);
  auto probs = attention_detail::dropped<B>(F::div(std::move(e), total), dropout);
  auto out = F::matmul(std::move(probs), as<B>(v, w));
  auto lse = F::add(F::log(std::move(total)), std::move(peak));
  Shape stats = q.shape();
  stats.remove(r - 1);
  return std::pair{as<B>(out, d), F::reshape(std::move(lse), stats)};
}

/// Gradients of attention for the output gradient grad, from its output and log-sum-exp:
/// P = exp(S - lse), Z the dropout factors (1 without dropout), dv = (P ∘ Z)ᵀ·grad,
/// dS = P ∘ ((grad·vᵀ) ∘ Z - rowsum(grad ∘ out)), dq = dS·k·scale, dk = dSᵀ·q·scale.
template <class B>
auto module_attention_backward(const typename B::FloatTensor& q, const typename B::FloatTensor& k,
                               const typename B::FloatTensor& v, const std::optional<typename B::BoolTensor>& mask,
                               double scale, bool causal, const AttentionDropout& dropout,
                               const typename B::FloatTensor& out,
                               const typename B::FloatTensor& logsumexp, const typename B::FloatTensor& grad) {
  using F = KindOps<B, Float>;
  using fused_detail::as;
  size_t r = q.shape().rank();
  DType d = q.dtype(), w = fused_detail::wide(d);
  auto qw = as<B>(q, w), kw = as<B>(k, w), g = as<B>(grad, w);
  Shape kept = logsumexp.shape();
  kept.push_back(1);
  auto lse = as<B>(F::reshape(logsumexp, kept), w);
  auto scores = attention_detail::masked_scores<B>(qw, kw, mask, scale, causal);
  auto hidden = F::equal_elem(scores, Scalar(-std::numeric_limits<double>::infinity()));
  // 0 where masked, whatever the log-sum-exp is (NaN or -inf for a query with no finite score), as PyTorch's.
  auto p = F::mask_fill(F::exp(F::sub(std::move(scores), std::move(lse))), hidden, Scalar(0.0));
  auto delta = F::sum_dim(F::mul(g, as<B>(out, w)), r - 1);
  auto dp = F::matmul(g, F::swap_dims(as<B>(v, w), r - 2, r - 1));
  std::optional<typename B::FloatTensor> factors;
  if (dropout.prob > 0.0) factors = attention_detail::dropout_factors<B>(p.shape(), dropout, p.device(), w);
  auto dv = F::matmul(F::swap_dims(factors ? F::mul(p, *factors) : p, r - 2, r - 1), g);
  if (factors) dp = F::mul(std::move(dp), *factors);
  auto ds = F::mul(std::move(p), F::sub(std::move(dp), std::move(delta)));
  ds = F::mask_fill(std::move(ds), std::move(hidden), Scalar(0.0));  // masked scores get no gradient, even NaN
  auto dq = F::mul_scalar(F::matmul(ds, kw), Scalar(scale));
  auto dk = F::mul_scalar(F::matmul(F::swap_dims(ds, r - 2, r - 1), qw), Scalar(scale));
  using T = typename B::FloatTensor;
  return AttentionGradients<T>{as<B>(dq, d), as<B>(dk, d), as<B>(dv, d)};
}

/// Each row's cross-entropy -log softmax(logits[row])[targets[row]] for logits [rows, classes] and class targets
/// [rows] (a negative target counts from the end), and each row's log-sum-exp, both [rows] in f32 for f16/bf16
/// logits (f64 for f64).
template <class B>
auto module_cross_entropy(const typename B::FloatTensor& logits, const typename B::IntTensor& targets) {
  using F = KindOps<B, Float>;
  using fused_detail::as;
  auto x = as<B>(logits, fused_detail::wide(logits.dtype()));
  size_t rows = x.shape()[0];
  // The row's peak, finite when every logit is -inf (its log-sum-exp is then -inf).
  auto peak = F::clamp_min(F::max_dim(x, 1), Scalar(std::numeric_limits<float>::lowest()));
  auto total = F::sum_dim(F::exp(F::sub(x, peak)), 1);
  auto lse = F::add(F::log(std::move(total)), std::move(peak));
  auto picked = F::gather(1, x, KindOps<B, Int>::reshape(targets, Shape{rows, 1}));
  return std::pair{F::reshape(F::sub(lse, std::move(picked)), Shape{rows}), F::reshape(std::move(lse), Shape{rows})};
}

/// The gradient of cross_entropy for the per-row gradient grad [rows], from its log-sum-exp:
/// (softmax(logits) - one_hot(targets))·grad, in the logits' dtype.
template <class B>
auto module_cross_entropy_backward(const typename B::FloatTensor& logits, const typename B::IntTensor& targets,
                                   const typename B::FloatTensor& logsumexp, const typename B::FloatTensor& grad) {
  using F = KindOps<B, Float>;
  using fused_detail::as;
  DType d = logits.dtype(), w = fused_detail::wide(d);
  auto x = as<B>(logits, w);
  Shape column{x.shape()[0], 1};
  auto g = F::reshape(as<B>(grad, w), column);
  auto p = F::exp(F::sub(x, F::expand(F::reshape(as<B>(logsumexp, w), column), x.shape())));
  auto dx = F::mul(std::move(p), F::expand(g, x.shape()));
  dx = F::scatter_add(1, std::move(dx), KindOps<B, Int>::reshape(targets, column), F::neg(std::move(g)));
  return as<B>(dx, d);
}

namespace fused_detail {

/// Layer norm (center: subtract the row's mean) or RMS norm, in the wide dtype; see the callers.
template <class T, class B>
T normalize(const T& x, const std::optional<T>& gamma, const std::optional<T>& beta, double epsilon, bool center) {
  using F = KindOps<B, Float>;
  size_t r = x.shape().rank();
  DType d = x.dtype(), w = wide(d);
  auto xw = as<B>(x, w);
  if (center) xw = F::sub(xw, F::mean_dim(xw, r - 1));
  auto y = F::mul(xw, inverse_rms<B>(xw, epsilon));
  if (gamma) y = F::mul(std::move(y), as_row<B>(as<B>(*gamma, w), r));
  if (beta) y = F::add(std::move(y), as_row<B>(as<B>(*beta, w), r));
  return as<B>(y, d);
}

/// The gradients of normalize: dx = rstd·(g - mean(g) - x̂·mean(g·x̂)) with g = grad·gamma and x̂ the normalized
/// input (no mean(g) term without centering); dgamma = Σ grad·x̂ and dbeta = Σ grad over every dim but the last.
template <class T, class B> NormGradients<T> normalize_backward(const T& x, const std::optional<T>& gamma,
                                                                bool has_beta, const T& grad, double epsilon,
                                                                bool center) {
  using F = KindOps<B, Float>;
  size_t r = x.shape().rank();
  DType d = x.dtype(), w = wide(d);
  auto xw = as<B>(x, w), gw = as<B>(grad, w);
  if (center) xw = F::sub(xw, F::mean_dim(xw, r - 1));
  auto rstd = inverse_rms<B>(xw, epsilon);
  auto xhat = F::mul(std::move(xw), rstd);
  auto g = gamma ? F::mul(gw, as_row<B>(as<B>(*gamma, w), r)) : gw;
  auto inner = F::sub(g, F::mul(xhat, F::mean_dim(F::mul(g, xhat), r - 1)));
  if (center) inner = F::sub(std::move(inner), F::mean_dim(g, r - 1));
  NormGradients<T> out{as<B>(F::mul(std::move(inner), rstd), d), std::nullopt, std::nullopt};
  if (gamma) out.gamma = as<B>(sum_to_last<B>(F::mul(gw, xhat)), gamma->dtype());
  if (has_beta) out.beta = as<B>(sum_to_last<B>(gw), d);
  return out;
}

}  // namespace fused_detail

/// (x - mean) / sqrt(var + epsilon) over the last dim (biased variance), times gamma, plus beta.
template <class B> auto module_layer_norm(const typename B::FloatTensor& x,
                                          const std::optional<typename B::FloatTensor>& gamma,
                                          const std::optional<typename B::FloatTensor>& beta, double epsilon) {
  return fused_detail::normalize<typename B::FloatTensor, B>(x, gamma, beta, epsilon, true);
}

/// Gradients of layer_norm (see fused_detail::normalize_backward); beta's when has_beta.
template <class B> auto module_layer_norm_backward(const typename B::FloatTensor& x,
                                                   const std::optional<typename B::FloatTensor>& gamma, bool has_beta,
                                                   const typename B::FloatTensor& grad, double epsilon) {
  return fused_detail::normalize_backward<typename B::FloatTensor, B>(x, gamma, has_beta, grad, epsilon, true);
}

/// x / sqrt(mean(x²) + epsilon) over the last dim, times gamma.
template <class B> auto module_rms_norm(const typename B::FloatTensor& x,
                                        const std::optional<typename B::FloatTensor>& gamma, double epsilon) {
  return fused_detail::normalize<typename B::FloatTensor, B>(x, gamma, std::nullopt, epsilon, false);
}

/// Gradients of rms_norm (see fused_detail::normalize_backward).
template <class B> auto module_rms_norm_backward(const typename B::FloatTensor& x,
                                                 const std::optional<typename B::FloatTensor>& gamma,
                                                 const typename B::FloatTensor& grad, double epsilon) {
  return fused_detail::normalize_backward<typename B::FloatTensor, B>(x, gamma, false, grad, epsilon, false);
}

/// x·weight, plus bias (added to every row), then relu when asked: x [rows, k], weight [k, n], bias [n]. Backends
/// with a product that applies bias and relu as it writes (cuBLASLt's epilogues) override it.
template <class B> auto module_linear(const typename B::FloatTensor& x, const typename B::FloatTensor& weight,
                                      const std::optional<typename B::FloatTensor>& bias, bool relu) {
  using F = KindOps<B, Float>;
  auto y = F::matmul(x, weight);
  if (bias) y = F::add(std::move(y), fused_detail::as_row<B>(*bias, 2));
  return relu ? F::relu(std::move(y)) : y;
}

/// Gradients of linear for the output gradient grad [rows, n], from its output (relu passes grad where the output
/// is above 0, as relu's own backward): x's, weight's and, when has_bias, bias's.
template <class B> auto module_linear_backward(const typename B::FloatTensor& x, const typename B::FloatTensor& weight,
                                               bool has_bias, bool relu, const typename B::FloatTensor& output,
                                               const typename B::FloatTensor& grad) {
  using F = KindOps<B, Float>;
  auto g = relu ? F::mask_fill(grad, F::lower_equal_elem(output, Scalar(0)), Scalar(0)) : grad;
  ConvGradients<typename B::FloatTensor> out{F::matmul(g, F::swap_dims(weight, 0, 1)),
                                             F::matmul(F::swap_dims(x, 0, 1), g), std::nullopt};
  if (has_bias) out.bias = fused_detail::sum_to_last<B>(g);
  return out;
}

}  // namespace provided
}  // namespace scorch
