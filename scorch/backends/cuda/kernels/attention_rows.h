#pragma once
// The row passes of the Cuda attention kernels (attention.cpp): one warp per query row of the
// [batch, heads, seq_q, seq_k] scores, in their compute dtype (f32, or f64 for f64), with the mask read
// through its broadcast strides. A pass whose result feeds an f16/bf16 product writes it in that dtype
// directly (`as`: the scores' own dtype writes in place).
#include <optional>
#include <utility>

#include "scorch/backends/cuda/cuda_tensor.h"

namespace scorch::backends::cuda::kernels::attention_rows {

/// softmax(scores·scale, -inf where mask, and where key j > query i when causal) in dtype `as` (in place for the
/// scores' dtype), and each row's log-sum-exp [batch, heads, seq_q] (-inf for a row whose keys are all masked, whose
/// probabilities are then NaN).
std::pair<CudaTensor, CudaTensor> softmax_with_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask,
                                                   bool causal, double scale, DType as);
/// In place: scores → exp(scores·scale - lse), -inf (so 0) where masked (as softmax_with_lse): the probabilities
/// again; also written in dtype `as` when it is not the scores' (returned then).
std::optional<CudaTensor> probs_from_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask, bool causal,
                                         const CudaTensor& lse, double scale, DType as);
/// probs ∘ (dprobs - rowsum(grad ∘ out)) · scale, the scores' gradient, in dtype `as` (in place in dprobs for its
/// dtype); grad and out are [batch, heads, seq_q, dv] contiguous in the scores' dtype.
CudaTensor score_grad(CudaTensor& dprobs, const CudaTensor& probs, const CudaTensor& grad, const CudaTensor& out,
                      double scale, DType as);

}  // namespace scorch::backends::cuda::kernels::attention_rows
