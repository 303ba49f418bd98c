// Scaled dot-product attention from the backend's own kernels: softmax(q·kᵀ·scale, masked to -inf
// where mask is true) · v, in f32 for f16/bf16 inputs (as the Cpu backend), f64 for f64; with each
// query's log-sum-exp for the backward, which recomputes the probabilities from it.
#include <limits>

#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace {

DType compute_dtype(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }

// q·kᵀ·scale in the compute dtype, -inf where mask is true.
T masked_scores(const T& q, const T& k, const std::optional<T>& mask, double scale) {
  DType cd = compute_dtype(q.dtype());
  T scores = mul_scalar(matmul(cast(q, cd), swap_dims(cast(k, cd), 2, 3)), Scalar(scale));
  if (!mask) return scores;
  Shape shape = scores.shape();
  return mask_fill(std::move(scores), expand(*mask, shape), Scalar(-std::numeric_limits<double>::infinity()));
}

}  // namespace

T attention(T q, T k, T v, const std::optional<T>& mask, double scale) {
  DType d = q.dtype();
  T out = matmul(softmax(masked_scores(q, k, mask, scale), 3), cast(std::move(v), compute_dtype(d)));
  return cast(std::move(out), d);
}

std::pair<T, T> attention_with_stats(T q, T k, T v, const std::optional<T>& mask, double scale) {
  DType d = q.dtype();
  T scores = masked_scores(q, k, mask, scale);
  T peak = max_dim(scores, 3);
  T e = exp(sub(std::move(scores), peak));
  T total = sum_dim(e, 3);
  T out = matmul(div(std::move(e), total), cast(std::move(v), compute_dtype(d)));
  Shape stats = total.shape();
  stats.remove(3);
  return {cast(std::move(out), d), reshape(add(log(std::move(total)), std::move(peak)), stats)};
}

AttentionGradients<T> attention_backward(T q, T k, T v, const std::optional<T>& mask, double scale, T out, T logsumexp,
                                         T grad) {
  DType d = q.dtype(), cd = compute_dtype(d);
  Shape kept = logsumexp.shape();
  kept.push_back(1);
  T p = exp(sub(masked_scores(q, k, mask, scale), reshape(cast(std::move(logsumexp), cd), kept)));
  T g = cast(std::move(grad), cd);
  T dv = matmul(swap_dims(p, 2, 3), g);
  T delta = sum_dim(mul(g, cast(std::move(out), cd)), 3);
  T ds = mul_scalar(mul(std::move(p), sub(matmul(g, swap_dims(cast(std::move(v), cd), 2, 3)), delta)), Scalar(scale));
  T dq = matmul(ds, cast(std::move(k), cd)), dk = matmul(swap_dims(std::move(ds), 2, 3), cast(std::move(q), cd));
  return {cast(std::move(dq), d), cast(std::move(dk), d), cast(std::move(dv), d)};
}

}  // namespace scorch::backends::cuda::kernels
