#pragma once
// Provided module ops, written with other ops; backends override them with fused kernels.
#include <cmath>
#include <limits>
#include <optional>

#include "scorch/backend/module_options.h"
#include "scorch/core/scalar.h"

namespace scorch {
template <class B, class K> struct KindOps;
template <class B> struct ModuleOpsOf;
struct Float;

namespace provided {

/// Max pooling without the indices.
template <class B> auto module_max_pool(const typename B::FloatTensor& x, const PoolSpec& spec) {
  return ModuleOpsOf<B>::max_pool_with_indices(x, spec).first;
}

/// softmax(q·kᵀ·scale, masked positions set to -inf)·v over [batch, heads, seq, dim] tensors;
/// mask (broadcast to [batch, heads, seq_q, seq_k]) is true where a key must be ignored.
template <class B> auto module_attention(const typename B::FloatTensor& q, const typename B::FloatTensor& k,
                                         const typename B::FloatTensor& v,
                                         const std::optional<typename B::BoolTensor>& mask, double scale) {
  using F = KindOps<B, Float>;
  size_t r = q.shape().rank();
  auto scores = F::mul_scalar(F::matmul(q, F::swap_dims(k, r - 2, r - 1)), Scalar(scale));
  if (mask) scores = F::mask_fill(std::move(scores), *mask, Scalar(-std::numeric_limits<double>::infinity()));
  return F::matmul(F::softmax(std::move(scores), r - 1), v);
}

}  // namespace provided
}  // namespace scorch
