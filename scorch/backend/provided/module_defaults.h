#pragma once
// Provided module ops, written with other ops; backends override them with fused kernels.
#include <cmath>
#include <limits>
#include <optional>

#include <vector>

#include "scorch/backend/attention_dropout.h"
#include "scorch/backend/module_options.h"
#include "scorch/core/scalar.h"
#include "scorch/core/tensor_data.h"

namespace scorch {
template <class B, class K> struct KindOps;
template <class B> struct ModuleOpsOf;
struct Float;
struct Int;
struct Bool;

namespace provided {

/// Max pooling without the indices.
template <class B> auto module_max_pool(const typename B::FloatTensor& x, const PoolSpec& spec) {
  return ModuleOpsOf<B>::max_pool_with_indices(x, spec).first;
}

namespace attention_detail {
/// Scores q·kᵀ·scale with -inf where mask is true and, when causal, where key j > query i (top-left aligned, as
/// PyTorch's is_causal).
template <class B, class T, class Bt>
T masked_scores(const T& q, const T& k, const std::optional<Bt>& mask, double scale, bool causal) {
  using F = KindOps<B, Float>;
  using I = KindOps<B, Int>;
  size_t r = q.shape().rank(), sq = q.shape()[r - 2], sk = k.shape()[r - 2];
  Scalar minus_inf(-std::numeric_limits<double>::infinity());
  auto scores = F::mul_scalar(F::matmul(q, F::swap_dims(k, r - 2, r - 1)), Scalar(scale));
  if (mask) scores = F::mask_fill(std::move(scores), *mask, minus_inf);
  if (!causal) return scores;
  auto index = [&](size_t n) { return I::arange(0, static_cast<int64_t>(n), 1, q.device(), DType::I64); };
  auto queries = I::expand(I::reshape(index(sq), Shape{sq, 1}), Shape{sq, sk});
  auto keys = I::expand(I::reshape(index(sk), Shape{1, sk}), Shape{sq, sk});
  Shape lifted{sq, sk};
  while (lifted.rank() < r) lifted.insert(0, 1);
  auto future = KindOps<B, Bool>::reshape(I::greater(std::move(keys), std::move(queries)), lifted);
  auto hidden = KindOps<B, Bool>::expand(std::move(future), scores.shape());
  return F::mask_fill(std::move(scores), std::move(hidden), minus_inf);
}
/// The dropout factors (0 or 1 / (1 − prob), DropoutMask's draw) of probabilities of shape `scores`, in dtype,
/// built on the host: the composition's mask matches every backend's kernels element for element.
template <class B>
typename B::FloatTensor dropout_factors(const Shape& scores, const AttentionDropout& dropout,
                                        const typename B::Device& device, DType dtype) {
  DropoutMask m = DropoutMask::of(dropout);
  std::vector<double> factors(scores.num_elements());
  for (size_t i = 0; i < factors.size(); ++i) factors[i] = m.factor<double>(i);
  return KindOps<B, Float>::cast(KindOps<B, Float>::from_data(TensorData(factors, scores), device), dtype);
}
/// probs with attention dropout applied (probs itself when prob is 0).
template <class B, class T> T dropped(T probs, const AttentionDropout& dropout) {
  if (!(dropout.prob > 0.0)) return probs;
  auto factors = dropout_factors<B>(probs.shape(), dropout, probs.device(), probs.dtype());
  return KindOps<B, Float>::mul(std::move(probs), std::move(factors));
}
}  // namespace attention_detail

/// dropout(softmax(q·kᵀ·scale, masked positions set to -inf))·v over [batch, heads, seq, dim] tensors;
/// mask (broadcast to [batch, heads, seq_q, seq_k]) is true where a key must be ignored; causal also ignores
/// key j for query i when j > i; dropout zeroes probabilities as DropoutMask draws them.
template <class B> auto module_attention(const typename B::FloatTensor& q, const typename B::FloatTensor& k,
                                         const typename B::FloatTensor& v,
                                         const std::optional<typename B::BoolTensor>& mask, double scale,
                                         bool causal, const AttentionDropout& dropout) {
  using F = KindOps<B, Float>;
  size_t r = q.shape().rank();
  auto scores = attention_detail::masked_scores<B>(q, k, mask, scale, causal);
  return F::matmul(attention_detail::dropped<B>(F::softmax(std::move(scores), r - 1), dropout), v);
}


}  // namespace provided
}  // namespace scorch
