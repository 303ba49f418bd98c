// Scaled dot-product attention on Cuda: f16/bf16 with head sizes 32, 64 and 128, and f32 with 32 and 64 (in
// 3xTF32), in the flash kernels (flash_attention.h); otherwise (f64, other head sizes) cuBLAS products and one
// warp-per-row pass over the scores (attention_rows.h). The products take the inputs' dtype (tensor cores for
// f16/bf16); the scores, the probabilities and their gradient live in f32 (f64 for f64) and are rounded to the
// inputs' dtype only where they enter a product (as flash attention rounds its probabilities). The forward keeps
// each query's log-sum-exp; the backward recomputes the probabilities from it (5 products, 2 row passes).
#include "scorch/backends/cuda/kernels/attention_rows.h"
#include "scorch/backends/cuda/kernels/flash_attention.h"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace {

DType attention_compute_dtype(DType d) { return d == DType::F64 ? DType::F64 : DType::F32; }
T in_dtype(T x, DType d) { return x.dtype() == d ? std::move(x) : cast(std::move(x), d); }

// dropout(softmax(q·kᵀ·scale, masked)), computed in the compute dtype and written in q's, and each row's
// log-sum-exp.
std::pair<T, T> probabilities(const T& q, const T& k, const std::optional<T>& mask, double scale, bool causal,
                              const AttentionDropout& dropout) {
  T scores = matmul_to(q, swap_dims(in_dtype(k, q.dtype()), 2, 3), attention_compute_dtype(q.dtype()));
  return attention_rows::softmax_with_lse(scores, mask, causal, dropout, scale, q.dtype());
}

}  // namespace

T attention(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal, const AttentionDropout& dropout) {
  return attention_with_stats(std::move(q), std::move(k), std::move(v), mask, scale, causal, dropout).first;
}

std::pair<T, T> attention_with_stats(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal,
                                     const AttentionDropout& dropout) {
  DType d = q.dtype();
  k = in_dtype(std::move(k), d), v = in_dtype(std::move(v), d);
  if (flash::supports(q, k, v)) return flash::forward(q, k, v, mask, scale, causal, dropout);
  auto [probs, lse] = probabilities(q, k, mask, scale, causal, dropout);
  T out = matmul(std::move(probs), in_dtype(std::move(v), d));
  return {std::move(out), std::move(lse)};
}

AttentionGradients<T> attention_backward(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal,
                                         const AttentionDropout& dropout, T out, T logsumexp, T grad) {
  DType d = q.dtype(), cd = attention_compute_dtype(d);
  k = in_dtype(std::move(k), d), v = in_dtype(std::move(v), d);
  if (flash::supports(q, k, v)) return flash::backward(q, k, v, mask, scale, causal, dropout, out, logsumexp, grad);
  // Each is read by two products: made contiguous once (a head view would be copied by each product).
  T qc = contiguous(std::move(q)), kc = contiguous(in_dtype(std::move(k), d));
  T probs = matmul_to(qc, swap_dims(kc, 2, 3), cd);
  auto low = attention_rows::probs_from_lse(probs, mask, causal, dropout,
                                            contiguous(in_dtype(std::move(logsumexp), cd)), scale, d);
  T grad_wide = contiguous(in_dtype(grad, cd));  // rowsum(grad ∘ out) from grad before any rounding to d
  T g = contiguous(in_dtype(std::move(grad), d));
  T dv = matmul(swap_dims(low ? *low : probs, 2, 3), g);
  T dprobs = matmul_to(g, swap_dims(in_dtype(std::move(v), d), 2, 3), cd);
  T ds = attention_rows::score_grad(dprobs, probs, grad_wide, contiguous(in_dtype(std::move(out), cd)), dropout,
                                    scale, d);
  T dq = matmul(ds, kc), dk = matmul(swap_dims(std::move(ds), 2, 3), qc);
  return {std::move(dq), std::move(dk), std::move(dv)};
}

}  // namespace scorch::backends::cuda::kernels
