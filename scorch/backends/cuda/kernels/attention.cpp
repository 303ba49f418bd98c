// Scaled dot-product attention from the backend's own kernels: softmax(q·kᵀ·scale, masked to -inf
// where mask is true) · v, in f32 for f16/bf16 inputs (as the Cpu backend), f64 for f64.
#include <limits>

#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {

T attention(T q, T k, T v, const std::optional<T>& mask, double scale) {
  DType d = q.dtype(), cd = d == DType::F64 ? DType::F64 : DType::F32;
  T scores = matmul(cast(std::move(q), cd), swap_dims(cast(std::move(k), cd), 2, 3));
  scores = mul_scalar(std::move(scores), Scalar(scale));
  if (mask) {
    Shape shape = scores.shape();
    scores = mask_fill(std::move(scores), expand(*mask, shape), Scalar(-std::numeric_limits<double>::infinity()));
  }
  T out = matmul(softmax(std::move(scores), 3), cast(std::move(v), cd));
  return cast(std::move(out), d);
}

}  // namespace scorch::backends::cuda::kernels
