// Scaled dot-product attention on Cuda: cuBLAS products and one warp-per-row pass over the scores
// (attention_rows.h), in f32 for f16/bf16 inputs (as the Cpu backend), f64 for f64. The forward keeps
// each query's log-sum-exp; the backward recomputes the probabilities from it (5 products, 2 row passes).
#include "scorch/backends/cuda/kernels/attention_rows.h"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace {

DType compute_dtype(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }
T in_compute(T x, DType cd) { return x.dtype() == cd ? std::move(x) : cast(std::move(x), cd); }

// softmax(q·kᵀ·scale, masked) in the compute dtype and each row's log-sum-exp.
std::pair<T, T> probabilities(const T& q, const T& k, const std::optional<T>& mask, double scale) {
  DType cd = compute_dtype(q.dtype());
  T scores = matmul(in_compute(q, cd), swap_dims(in_compute(k, cd), 2, 3));
  T lse = attention_rows::softmax_with_lse(scores, mask, scale);
  return {std::move(scores), std::move(lse)};
}

}  // namespace

T attention(T q, T k, T v, const std::optional<T>& mask, double scale) {
  return attention_with_stats(std::move(q), std::move(k), std::move(v), mask, scale).first;
}

std::pair<T, T> attention_with_stats(T q, T k, T v, const std::optional<T>& mask, double scale) {
  DType d = q.dtype();
  auto [probs, lse] = probabilities(q, k, mask, scale);
  T out = matmul(std::move(probs), in_compute(std::move(v), compute_dtype(d)));
  return {in_compute(std::move(out), d), std::move(lse)};
}

AttentionGradients<T> attention_backward(T q, T k, T v, const std::optional<T>& mask, double scale, T out, T logsumexp,
                                         T grad) {
  DType d = q.dtype(), cd = compute_dtype(d);
  // Each is read by two products: made contiguous once (a head view would be copied by each product).
  T qc = contiguous(in_compute(std::move(q), cd)), kc = contiguous(in_compute(std::move(k), cd));
  T probs = matmul(qc, swap_dims(kc, 2, 3));
  attention_rows::probs_from_lse(probs, mask, contiguous(in_compute(std::move(logsumexp), cd)), scale);
  T g = contiguous(in_compute(std::move(grad), cd));
  T dv = matmul(swap_dims(probs, 2, 3), g);
  T ds = matmul(g, swap_dims(in_compute(std::move(v), cd), 2, 3));
  attention_rows::score_grad(ds, probs, g, contiguous(in_compute(std::move(out), cd)), scale);
  T dq = matmul(ds, kc), dk = matmul(swap_dims(std::move(ds), 2, 3), qc);
  return {in_compute(std::move(dq), d), in_compute(std::move(dk), d), in_compute(std::move(dv), d)};
}

}  // namespace scorch::backends::cuda::kernels
