#pragma once
// Flash attention on Cuda (flash_attention.cu, sm_90): f16/bf16 attention on tensor cores (mma.sync m16n8k16, f32
// accumulators), f32 attention in 3xTF32 on them (mma.sync m16n8k8, three products per step: f32's accuracy, as
// flash_mma.cuh says), a block of 128 rows against streamed tiles of 64, with an online softmax, so no
// seq_q × seq_k matrix is stored.
// The backward recomputes the probabilities from the forward's log-sum-exp (as FlashAttention-2). Operands are
// read through their batch, head and row strides (the head views of a [batch, seq, heads, d] projection are not
// copied), and results are written in the layout of the operand they belong to.
#include <optional>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/backends/cuda/cuda_tensor.h"

namespace scorch::backends::cuda::kernels::flash {

/// True when the kernels take these operands: q, k, v of one dtype, f16, bf16 or f32, with one head size for q·kᵀ
/// and for v of 32, 64 or (f16/bf16 only) 128, and at least one query and one key.
bool supports(const CudaTensor& q, const CudaTensor& k, const CudaTensor& v);
/// dropout(softmax(q·kᵀ·scale, -inf where mask, and where key j > query i when causal))·v in q's dtype, and each
/// query's log-sum-exp in f32 (-inf for a query whose keys are all masked; its output is NaN). A causal block reads
/// only the key tiles its queries see; dropout draws DropoutMask's factors in registers. Requires supports(q, k, v).
std::pair<CudaTensor, CudaTensor> forward(const CudaTensor& q, const CudaTensor& k, const CudaTensor& v,
                                          const std::optional<CudaTensor>& mask, double scale, bool causal,
                                          const AttentionDropout& dropout);
/// The gradients of forward for the output gradient grad (any float dtype), from its output and log-sum-exp; a
/// query whose keys are all masked contributes none. Requires supports(q, k, v).
AttentionGradients<CudaTensor> backward(const CudaTensor& q, const CudaTensor& k, const CudaTensor& v,
                                        const std::optional<CudaTensor>& mask, double scale, bool causal,
                                        const AttentionDropout& dropout, const CudaTensor& out,
                                        const CudaTensor& logsumexp, const CudaTensor& grad);

}  // namespace scorch::backends::cuda::kernels::flash
