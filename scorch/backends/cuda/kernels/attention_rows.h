#pragma once
// The row passes of the Cuda attention kernels (attention.cpp): one warp per query row of the
// [batch, heads, seq_q, seq_k] scores, in their compute dtype (f32, or f64 for f64), with the mask read
// through its broadcast strides. A pass whose result feeds an f16/bf16 product writes it in that dtype
// directly (`as`: the scores' own dtype writes in place).
#include <optional>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/backends/cuda/cuda_tensor.h"

namespace scorch::backends::cuda::kernels::attention_rows {

/// softmax(scores·scale, -inf where mask, and where key j > query i when causal), times the dropout factors, in
/// dtype `as` (in place for the scores' dtype), and each row's log-sum-exp [batch, heads, seq_q] (-inf for a row
/// whose keys are all masked, whose probabilities are then NaN).
std::pair<CudaTensor, CudaTensor> softmax_with_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask,
                                                   bool causal, const AttentionDropout& dropout, double scale,
                                                   DType as);
/// In place: scores → exp(scores·scale - lse), -inf (so 0) where masked (as softmax_with_lse): the probabilities
/// again. Returns them times the dropout factors in dtype `as` when that differs from the scores' or dropout is on
/// (the dv product's operand), else nullopt.
std::optional<CudaTensor> probs_from_lse(CudaTensor& scores, const std::optional<CudaTensor>& mask, bool causal,
                                         const AttentionDropout& dropout, const CudaTensor& lse, double scale,
                                         DType as);
/// probs * (dprobs * Z - rowsum(grad * out)) * scale (Z the dropout factors), the scores' gradient, in dtype `as`
/// (in place in dprobs for its dtype); grad and out are [batch, heads, seq_q, dv] contiguous in the scores' dtype.
CudaTensor score_grad(CudaTensor& dprobs, const CudaTensor& probs, const CudaTensor& grad, const CudaTensor& out,
                      const AttentionDropout& dropout, double scale, DType as);

}  // namespace scorch::backends::cuda::kernels::attention_rows
