#pragma once
// Fused functional ops (scorch::functional): attention with its log-sum-exp and its backward, layer
// norm and RMS norm with theirs, linear (product, bias and relu) with its backward. Arguments are checked
// here; the backend's module ops do the work (one kernel where the backend has one, a composition otherwise).
#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/tensor/functional.h"
#include "scorch/tensor/functional_checks.h"
#include "scorch/tensor/tensor.h"

namespace scorch::functional {

/// Gradients of attention with respect to q, k and v.
template <class B> struct AttentionGrads { Tensor<B, 4> q, k, v; };
/// Gradients of a normalization with respect to its input and, when it had them, gamma and beta.
template <class B, size_t D> struct NormGrads {
  Tensor<B, D> x;
  std::optional<Tensor<B, 1>> gamma, beta;
};

namespace detail {
template <class T> auto primitive_of(const std::optional<T>& t) {
  return t ? std::optional(t->primitive()) : std::nullopt;
}
template <class T> std::optional<Shape> shape_of_param(const std::optional<T>& t) {
  return t ? std::optional(t->shape()) : std::nullopt;
}
/// Checks a norm's arguments (see check::norm) and the parameters' dtypes.
template <class B, size_t D> void check_norm(const char* op, const Tensor<B, D>& x,
                                             const std::optional<Tensor<B, 1>>& gamma,
                                             const std::type_identity_t<std::optional<Tensor<B, 1>>>& beta,
                                             const std::optional<Shape>& grad = std::nullopt) {
  check::norm(op, x.shape(), x.dtype(), shape_of_param(gamma), shape_of_param(beta), grad);
  if (gamma) check::param_dtype(op, "gamma", x.dtype(), gamma->dtype());
  if (beta) check::param_dtype(op, "beta", x.dtype(), beta->dtype());
}
template <class B, size_t D> NormGrads<B, D> wrap_norm_grads(NormGradients<typename B::FloatTensor> g) {
  NormGrads<B, D> out{Tensor<B, D>(std::move(g.x)), std::nullopt, std::nullopt};
  if (g.gamma) out.gamma = Tensor<B, 1>(std::move(*g.gamma));
  if (g.beta) out.beta = Tensor<B, 1>(std::move(*g.beta));
  return out;
}
}  // namespace detail

/// Attention's output and each query's log-sum-exp of its masked scaled scores ([batch, heads, seq_q], f32
/// for f16/bf16; -inf where every key is masked), the statistics attention_backward reads. Arguments as
/// attention; dropout carries its seed (attention_dropout), for the backward to draw the same mask. Under Autodiff
/// the output is differentiable and the log-sum-exp is not (no gradient flows from it).
template <class B> std::pair<Tensor<B, 4>, Tensor<B, 3>> attention_with_stats(
    const Tensor<B, 4>& q, const Tensor<B, 4>& k, const Tensor<B, 4>& v,
    const std::type_identity_t<std::optional<Tensor<B, 4, Bool>>>& mask = std::nullopt,
    std::optional<double> scale = std::nullopt, bool causal = false, const AttentionDropout& dropout = {}) {
  auto lq = amp::to_autocast(q), lk = amp::to_autocast(k), lv = amp::to_autocast(v);  // the autocast policy
  check::attention(q.shape(), k.shape(), v.shape(), detail::shape_of(mask), lq.dtype(), lk.dtype(), lv.dtype());
  check::attention_dropout(dropout.prob);
  double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(q.shape()[3])));
  auto [out, lse] = detail::ModOps<B>::attention_with_stats(lq.primitive(), lk.primitive(), lv.primitive(),
                                                            detail::primitive_of(mask), s, causal, dropout);
  return {Tensor<B, 4>(std::move(out)), Tensor<B, 3>(std::move(lse))};
}

/// Gradients of attention for the output gradient grad, from its output and log-sum-exp
/// (attention_with_stats, with the same mask, scale, causal and dropout); no gradient flows through them.
template <class B>
AttentionGrads<B> attention_backward(const Tensor<B, 4>& q, const Tensor<B, 4>& k, const Tensor<B, 4>& v,
                                     const Tensor<B, 4>& out, const Tensor<B, 3>& logsumexp, const Tensor<B, 4>& grad,
                                     const std::type_identity_t<std::optional<Tensor<B, 4, Bool>>>& mask = std::nullopt,
                                     std::optional<double> scale = std::nullopt, bool causal = false,
                                     const AttentionDropout& dropout = {}) {
  auto lq = amp::to_autocast(q), lk = amp::to_autocast(k), lv = amp::to_autocast(v);  // the autocast policy
  auto lout = amp::to_autocast(out), lgrad = amp::to_autocast(grad);
  check::attention(q.shape(), k.shape(), v.shape(), detail::shape_of(mask), lq.dtype(), lk.dtype(), lv.dtype());
  check::attention_backward(q.shape(), v.shape(), out.shape(), logsumexp.shape(), grad.shape());
  check::attention_dropout(dropout.prob);
  double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(q.shape()[3])));
  auto g = detail::ModOps<B>::attention_backward(lq.primitive(), lk.primitive(), lv.primitive(),
                                                 detail::primitive_of(mask), s, causal, dropout, lout.primitive(),
                                                 logsumexp.primitive(), lgrad.primitive());
  return {Tensor<B, 4>(std::move(g.q)), Tensor<B, 4>(std::move(g.k)), Tensor<B, 4>(std::move(g.v))};
}

/// Each row's cross-entropy -log softmax(logits[row])[targets[row]] for logits [rows, classes] and class targets
/// [rows] (a negative target counts from the end; one out of range throws ShapeError), and each row's log-sum-exp
/// (what cross_entropy_backward reads), both [rows] in f32 for f16/bf16 logits: one fused op that reads the logits
/// in their own dtype. Under Autodiff the first is differentiable.
template <class B> std::pair<Tensor<B, 1>, Tensor<B, 1>> cross_entropy_with_stats(const Tensor<B, 2>& logits,
                                                                                  const Tensor<B, 1, Int>& targets) {
  check::cross_entropy("cross_entropy", logits.shape(), targets.shape());
  auto [nll, lse] = detail::ModOps<B>::cross_entropy(logits.primitive(), targets.primitive());
  return {Tensor<B, 1>(std::move(nll)), Tensor<B, 1>(std::move(lse))};
}
/// cross_entropy_with_stats' per-row cross-entropy alone.
template <class B> Tensor<B, 1> cross_entropy(const Tensor<B, 2>& logits, const Tensor<B, 1, Int>& targets) {
  return cross_entropy_with_stats(logits, targets).first;
}
/// The gradient of cross_entropy with respect to the logits for the per-row gradient grad [rows], from its
/// log-sum-exp: (softmax(logits) - one_hot(targets))·grad, in the logits' dtype.
template <class B> Tensor<B, 2> cross_entropy_backward(const Tensor<B, 2>& logits, const Tensor<B, 1, Int>& targets,
                                                       const Tensor<B, 1>& logsumexp, const Tensor<B, 1>& grad) {
  check::cross_entropy("cross_entropy_backward", logits.shape(), targets.shape());
  check::cross_entropy("cross_entropy_backward", logits.shape(), logsumexp.shape(), "logsumexp");
  check::cross_entropy("cross_entropy_backward", logits.shape(), grad.shape(), "grad");
  return Tensor<B, 2>(detail::ModOps<B>::cross_entropy_backward(logits.primitive(), targets.primitive(),
                                                                logsumexp.primitive(), grad.primitive()));
}

/// The hyper-parameters of adam_update: step is the step's 1-based count (for the bias corrections); decoupled
/// decays the parameter (AdamW), otherwise weight_decay·param is added to the gradient (Adam's L2).
struct AdamUpdateOptions {
  double lr = 1e-3, beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-8, weight_decay = 0;
  bool decoupled = false;
  double step = 1;
};
/// A parameter and its moments after one step.
template <class B, size_t D> struct AdamStep { Tensor<B, D> param, moment_1, moment_2; };
/// One Adam (or AdamW, options.decoupled) step of param from grad and the moments (zeros before the first step),
/// as torch.optim.Adam/AdamW compute it: m' = β₁m + (1−β₁)g, v' = β₂v + (1−β₂)g², param' = param −
/// lr·(m'/(1−β₁^step)) / (√(v'/(1−β₂^step)) + ε) (− lr·weight_decay·param when decoupled).
/// One kernel on Cuda.
/// Throws ShapeError/DTypeError unless the four tensors share shape and dtype, ValueError for step < 1 or a β
/// outside [0, 1).
template <class B, size_t D> AdamStep<B, D> adam_update(const Tensor<B, D>& param, const Tensor<B, D>& grad,
                                                        const Tensor<B, D>& moment_1, const Tensor<B, D>& moment_2,
                                                        const AdamUpdateOptions& o = {}) {
  check::adam_update(param.shape(), param.dtype(),
                     {std::pair{grad.shape(), grad.dtype()}, std::pair{moment_1.shape(), moment_1.dtype()},
                      std::pair{moment_2.shape(), moment_2.dtype()}},
                     o.beta_1, o.beta_2, o.step);
  auto r =
      detail::ModOps<B>::adam_update(param.primitive(), grad.primitive(), moment_1.primitive(), moment_2.primitive(),
                                     o.lr, o.beta_1, o.beta_2, o.epsilon, o.weight_decay, o.decoupled, o.step);
  return {Tensor<B, D>(std::move(r.param)), Tensor<B, D>(std::move(r.moment_1)), Tensor<B, D>(std::move(r.moment_2))};
}

/// (x - mean) / sqrt(var + epsilon) over the last dim (biased variance, as PyTorch), times gamma and
/// plus beta when given ([x's last dim], x's dtype).
template <class B, size_t D>
Tensor<B, D> layer_norm(const Tensor<B, D>& x, const std::optional<Tensor<B, 1>>& gamma = std::nullopt,
                        const std::optional<Tensor<B, 1>>& beta = std::nullopt, double epsilon = 1e-5) {
  auto fx = amp::to_full(x);  // the autocast policy: normalization in f32
  auto fg = amp::to_full(gamma), fb = amp::to_full(beta);
  detail::check_norm("layer_norm", fx, fg, fb);
  return Tensor<B, D>(
      detail::ModOps<B>::layer_norm(fx.primitive(), detail::primitive_of(fg), detail::primitive_of(fb), epsilon));
}
/// Gradients of layer_norm for the output gradient grad; beta's when has_beta.
template <class B, size_t D>
NormGrads<B, D> layer_norm_backward(const Tensor<B, D>& x, const std::optional<Tensor<B, 1>>& gamma, bool has_beta,
                                    const Tensor<B, D>& grad, double epsilon = 1e-5) {
  // The autocast policy: normalization in f32 (one declaration each: their types differ).
  auto fx = amp::to_full(x);
  auto fg = amp::to_full(gamma);
  auto fgrad = amp::to_full(grad);
  detail::check_norm("layer_norm_backward", fx, fg, std::nullopt, grad.shape());
  return detail::wrap_norm_grads<B, D>(detail::ModOps<B>::layer_norm_backward(fx.primitive(), detail::primitive_of(fg),
                                                                              has_beta, fgrad.primitive(), epsilon));
}

/// x / sqrt(mean(x²) + epsilon) over the last dim, times gamma when given.
template <class B, size_t D> Tensor<B, D> rms_norm(const Tensor<B, D>& x,
                                                   const std::optional<Tensor<B, 1>>& gamma = std::nullopt,
                                                   double epsilon = 1e-5) {
  auto fx = amp::to_full(x);  // the autocast policy: normalization in f32
  auto fg = amp::to_full(gamma);
  detail::check_norm("rms_norm", fx, fg, std::nullopt);
  return Tensor<B, D>(detail::ModOps<B>::rms_norm(fx.primitive(), detail::primitive_of(fg), epsilon));
}
/// Gradients of rms_norm for the output gradient grad.
template <class B, size_t D> NormGrads<B, D> rms_norm_backward(const Tensor<B, D>& x,
                                                               const std::optional<Tensor<B, 1>>& gamma,
                                                               const Tensor<B, D>& grad, double epsilon = 1e-5) {
  auto fx = amp::to_full(x);  // the autocast policy: normalization in f32
  auto fg = amp::to_full(gamma);
  auto fgrad = amp::to_full(grad);
  detail::check_norm("rms_norm_backward", fx, fg, std::nullopt, grad.shape());
  return detail::wrap_norm_grads<B, D>(
      detail::ModOps<B>::rms_norm_backward(fx.primitive(), detail::primitive_of(fg), fgrad.primitive(), epsilon));
}

/// x·weight + bias, then relu when asked, as one op (on Cuda one cuBLASLt product that adds bias and applies relu as
/// it writes): x [..., k] (its leading dims flattened into rows), weight [k, n], bias [n]; [..., n] in x's dtype,
/// or the autocast dtype inside a scope.
template <class B, size_t D> Tensor<B, D> linear(const Tensor<B, D>& x, const Tensor<B, 2>& weight,
                                                 const std::optional<Tensor<B, 1>>& bias = std::nullopt,
                                                 bool relu = false) {
  static_assert(D >= 1, "linear needs x of rank >= 1");
  auto lx = amp::to_autocast(x);  // the autocast policy
  auto lw = amp::to_autocast(weight);
  auto lb = amp::to_autocast(bias);
  check::linear("linear", x.shape(), lx.dtype(), weight.shape(), lw.dtype(), detail::shape_of(bias),
                lb ? lb->dtype() : lx.dtype());
  size_t rows = 1;
  for (size_t i = 0; i + 1 < D; ++i) rows *= x.shape()[i];
  Shape out = x.shape();
  out[D - 1] = weight.shape()[1];
  auto flat = lx.template reshape<2>({rows, weight.shape()[0]});
  auto y = detail::ModOps<B>::linear(flat.primitive(), lw.primitive(), detail::bias_primitive(lb), relu);
  return Tensor<B, 2>(std::move(y)).template reshape<D>(out);
}
/// Gradients of linear (x [rows, k], weight [k, n]) for the output gradient grad [rows, n], from its output: x's,
/// weight's and, when has_bias, bias's.
template <class B> ConvGrads<B, 2> linear_backward(const Tensor<B, 2>& x, const Tensor<B, 2>& weight, bool has_bias,
                                                   bool relu, const Tensor<B, 2>& output, const Tensor<B, 2>& grad) {
  check::linear("linear_backward", x.shape(), x.dtype(), weight.shape(), weight.dtype(), std::nullopt, x.dtype());
  Shape out{x.shape()[0], weight.shape()[1]};
  check::linear_result("linear_backward", "output", out, x.dtype(), output.shape(), output.dtype());
  check::linear_result("linear_backward", "grad", out, x.dtype(), grad.shape(), grad.dtype());
  return detail::wrap_grads<B, 2>(detail::ModOps<B>::linear_backward(x.primitive(), weight.primitive(), has_bias, relu,
                                                                     output.primitive(), grad.primitive()));
}

}  // namespace scorch::functional
