#pragma once
// The row passes of the Cuda attention kernels (attention.cpp): one warp per query row of the
// [batch, heads, seq_q, seq_k] scores, in their compute dtype (f32, or f64 for f64), with the mask read
// through its broadcast strides.
#include <optional>

#include "scorch/backends/cuda/cuda_tensor.h"

namespace scorch::backends::cuda::kernels::attention_rows {

/// In place: scores → softmax(scores·scale, -inf where mask); returns each row's log-sum-exp
/// [batch, heads, seq_q] (-inf for a row whose keys are all masked, whose probabilities are then NaN).
CudaTensor softmax_with_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask, double scale);
/// In place: scores → exp(scores·scale - lse), -inf (so 0) where mask: the probabilities again.
void probs_from_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask, const CudaTensor& lse, double scale);
/// In place: dprobs → probs ∘ (dprobs - rowsum(grad ∘ out)) · scale, the scores' gradient; grad and out are
/// [batch, heads, seq_q, dv] contiguous in the scores' dtype.
void score_grad(CudaTensor& dprobs, const CudaTensor& probs, const CudaTensor& grad, const CudaTensor& out,
                double scale);

}  // namespace scorch::backends::cuda::kernels::attention_rows
