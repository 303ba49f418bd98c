// Fused module ops on LibTorch: attention with its log-sum-exp and its backward, layer norm (ATen's
// native_layer_norm and its backward) and RMS norm. f16/bf16 compute in f32 on every device (the log-sum-exp
// stays f32).
#include <array>
#include <limits>

#include "scorch/backend/attention_dropout.h"
#include "scorch/backends/libtorch/interop.h"

namespace scorch::backends::libtorch {

at::Tensor detail::attention_scores(const at::Tensor& q, const at::Tensor& k, const std::optional<TorchTensor>& mask,
                                    double scale, bool causal) {
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1)).mul_(scale);
  double minus_inf = -std::numeric_limits<double>::infinity();
  if (mask) scores.masked_fill_(get(*mask), minus_inf);
  if (causal)
    scores.masked_fill_(at::ones({q.size(-2), k.size(-2)}, q.options().dtype(at::kBool)).triu_(1), minus_inf);
  return scores;
}

at::Tensor detail::attention_dropped(const at::Tensor& probs, const AttentionDropout& dropout) {
  if (!(dropout.prob > 0.0)) return probs;
  DropoutMask m = DropoutMask::of(dropout);
  at::Tensor factors = at::empty(probs.sizes(), at::TensorOptions().dtype(at::kDouble));
  double* f = factors.data_ptr<double>();
  for (int64_t i = 0; i < factors.numel(); ++i) f[i] = m.factor<double>(static_cast<uint64_t>(i));
  return probs * factors.to(probs.options());
}

namespace ops {
using namespace detail;
namespace {

/// Class targets as int64 with negatives counted from the end; throws ShapeError naming op for one out of range.
at::Tensor resolved_targets(const char* op, const at::Tensor& targets, int64_t classes) {
  at::Tensor t = targets.to(at::kLong);
  t = at::where(t < 0, t + classes, t);
  check_indices(op, t, classes);
  return t;
}

/// The [d] normalized shape of x's last dim.
std::vector<int64_t> last_dim(const at::Tensor& x) { return {x.size(-1)}; }

/// x in f32 when it is f16/bf16 (on any device: squares and exponentials overflow in half precision).
at::Tensor wide(const at::Tensor& x) {
  return x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16 ? x.to(at::kFloat) : widened(x);
}

/// An optional handle's tensor widened (wide), or an undefined tensor.
at::Tensor optional_wide(const std::optional<T>& t) { return t ? wide(get(*t)) : at::Tensor(); }

/// The sum of x over every dim but the last.
at::Tensor sum_to_last(const at::Tensor& x) {
  int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
  return x.reshape({rows, n}).sum(0);
}

/// 1 / sqrt(mean(x²) + epsilon) over the last dim, kept with size 1.
at::Tensor inverse_rms(const at::Tensor& x, double epsilon) { return x.square().mean(-1, true).add_(epsilon).rsqrt_(); }

}  // namespace

std::pair<T, T> attention_with_stats(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal,
                                     const AttentionDropout& dropout) {
  return guarded("attention_with_stats", [&] {
    at::ScalarType type = to_torch(q.dtype());
    at::Tensor scores = attention_scores(wide(take(q)), wide(take(k)), mask, scale, causal);
    at::Tensor lse = at::logsumexp(scores, -1);
    at::Tensor probs = attention_dropped(at::softmax(scores, -1), dropout);
    return std::pair{wrap(at::matmul(probs, wide(take(v))).to(type)), wrap(lse)};
  });
}

std::pair<T, T> cross_entropy(T logits, T targets) {
  return guarded("cross_entropy", [&] {
    at::Tensor x = wide(take(logits));
    at::Tensor lse = at::logsumexp(x, 1);
    at::Tensor t = resolved_targets("cross_entropy", take(targets), x.size(1));
    at::Tensor picked = x.gather(1, t.unsqueeze(1)).squeeze(1);
    return std::pair{wrap(lse - picked), wrap(lse)};
  });
}

T cross_entropy_backward(T logits, T targets, T logsumexp, T grad) {
  return guarded("cross_entropy_backward", [&] {
    at::ScalarType type = to_torch(logits.dtype());
    at::Tensor x = wide(take(logits)), g = wide(take(grad)).unsqueeze(1);
    at::Tensor dx = (x - wide(take(logsumexp)).unsqueeze(1)).exp_().mul_(g);
    dx.scatter_add_(1, resolved_targets("cross_entropy_backward", take(targets), x.size(1)).unsqueeze(1), -g);
    return wrap(dx.to(type));
  });
}

AttentionGradients<T> attention_backward(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal,
                                         const AttentionDropout& dropout, T out, T logsumexp, T grad) {
  return guarded("attention_backward", [&] {
    at::ScalarType type = to_torch(q.dtype());
    at::Tensor query = wide(take(q)), key = wide(take(k)), value = wide(take(v)), g = wide(take(grad));
    at::Tensor scores = attention_scores(query, key, mask, scale, causal);
    at::Tensor hidden = scores == -std::numeric_limits<double>::infinity();  // 0 there, whatever the lse is
    at::Tensor p = (scores - wide(take(logsumexp)).unsqueeze(-1)).exp_().masked_fill_(hidden, 0);
    at::Tensor dv = at::matmul(attention_dropped(p, dropout).transpose(-2, -1), g);
    at::Tensor delta = (g * wide(take(out))).sum(-1, true);
    at::Tensor dp = attention_dropped(at::matmul(g, value.transpose(-2, -1)), dropout);  // the same factors
    at::Tensor ds = p.mul_(dp.sub_(delta)).mul_(scale).masked_fill_(hidden, 0);
    at::Tensor dq = at::matmul(ds, key), dk = at::matmul(ds.transpose(-2, -1), query);
    return AttentionGradients<T>{wrap(dq.to(type)), wrap(dk.to(type)), wrap(dv.to(type))};
  });
}

T layer_norm(T x, const std::optional<T>& gamma, const std::optional<T>& beta, double epsilon) {
  return guarded("layer_norm", [&] {
    at::ScalarType type = to_torch(x.dtype());
    at::Tensor input = wide(take(x));
    auto result = at::native_layer_norm(input, last_dim(input), optional_wide(gamma), optional_wide(beta), epsilon);
    return wrap(std::get<0>(result).to(type));
  });
}

NormGradients<T> layer_norm_backward(T x, const std::optional<T>& gamma, bool has_beta, T grad, double epsilon) {
  return guarded("layer_norm_backward", [&] {
    at::ScalarType type = to_torch(x.dtype());
    at::Tensor input = wide(take(x)), g = wide(take(grad)), weight = optional_wide(gamma);
    auto [y, mean, rstd] = at::native_layer_norm(input, last_dim(input), weight, at::Tensor(), epsilon);
    std::array<bool, 3> mask{true, gamma.has_value(), false};
    auto grads = at::native_layer_norm_backward(g, input, last_dim(input), mean, rstd, weight, at::Tensor(), mask);
    NormGradients<T> result{wrap(std::get<0>(grads).to(type)), std::nullopt, std::nullopt};
    if (gamma) result.gamma = wrap(std::get<1>(grads).to(to_torch(gamma->dtype())));
    if (has_beta) result.beta = wrap(sum_to_last(g).to(type));
    return result;
  });
}

T rms_norm(T x, const std::optional<T>& gamma, double epsilon) {
  return guarded("rms_norm", [&] {
    at::ScalarType type = to_torch(x.dtype());
    at::Tensor input = wide(take(x));
    at::Tensor y = input * inverse_rms(input, epsilon);
    if (gamma) y.mul_(wide(get(*gamma)));
    return wrap(y.to(type));
  });
}

NormGradients<T> rms_norm_backward(T x, const std::optional<T>& gamma, T grad, double epsilon) {
  return guarded("rms_norm_backward", [&] {
    at::ScalarType type = to_torch(x.dtype());
    at::Tensor input = wide(take(x)), g = wide(take(grad));
    at::Tensor rstd = inverse_rms(input, epsilon), xhat = input * rstd;
    at::Tensor gy = gamma ? g * wide(get(*gamma)) : g;
    at::Tensor dx = (gy - xhat * (gy * xhat).mean(-1, true)).mul_(rstd);
    NormGradients<T> result{wrap(dx.to(type)), std::nullopt, std::nullopt};
    if (gamma) result.gamma = wrap(sum_to_last(g * xhat).to(to_torch(gamma->dtype())));
    return result;
  });
}

}  // namespace ops
}  // namespace scorch::backends::libtorch
