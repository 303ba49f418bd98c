#pragma once
// CUDA C source for a fused program (Fusion<Cuda>): one thread per element of the program's shape loads each
// leaf once, applies every op with the backends/common/scalar_ops.h functors (the eager kernels' own, f16/bf16
// computed in f32 and rounded after each op as the eager kernels store them), and stores each output once; a
// program closed by a reduction (sum/mean/max/min along a dim, softmax, log-softmax) computes its elementwise
// ops as the reduction reads them. Pure host code: the source is compiled at run time by NVRTC
// (backends/cuda/jit.h) and cached by its text, which depends only on the program's structure (scalars, strides
// and the reduction's extent are kernel parameters).
#include <optional>
#include <string>
#include <vector>

#include "scorch/core/dtype.h"
#include "scorch/core/scalar.h"
#include "scorch/gen/op_info.h"

namespace scorch::fusion {

#define SCORCH_FUSED_PARAMS_BODY \
  const void* in[16];            \
  void* out[8];                  \
  long long n;                   \
  long long rank;                \
  long long dims[8];             \
  long long strides[16][8];      \
  double fs[16];                 \
  long long is[16];              \
  long long vec;                 \
  long long red_n;               \
  long long red_inner;           \
  long long red_mode;            \
  long long red_cache;

/// The fused kernel's one argument (the generated source declares the same struct).
struct FusedParams {
  SCORCH_FUSED_PARAMS_BODY
};
inline constexpr size_t kMaxFusedLeaves = 16, kMaxFusedOutputs = 8, kMaxFusedScalars = 16;
/// Elements a thread of a contiguous kernel handles: moved as one pack per operand when p.vec is set (every
/// pointer aligned to the pack and n a multiple of it).
inline constexpr size_t kFusedLanes = 4;

/// One op of a kernel: its inputs (>= 0: an earlier op; < 0: leaf -(k + 1)), its Scalar arguments and dtypes.
struct KernelOp {
  OpId op;
  std::vector<int> inputs;
  std::vector<Scalar> scalars;
  DType input_dtype;                    // dtype of its first input
  std::optional<DType> output_dtype{};  // unset: the input's (bool for comparisons)
};

/// How a reduction kernel maps threads (FusedParams::red_mode).
enum class ReduceMode : long long {
  lanes = 0,      // one thread per output lane (the reduced dim is not innermost)
  warp_rows = 1,  // one warp per row (innermost dim of at most kWarpRowMax elements)
  block_rows = 2  // one block of kFusedThreads per row
};
inline constexpr long long kWarpRowMax = 1024;
inline constexpr unsigned kFusedThreads = 256;
/// Dynamic shared memory a softmax over rows may use to keep a row's values between its passes
/// (FusedParams::red_cache set: the launch gives rows-per-block × n accumulators of it).
/// (47 KiB: a block may use 48 KiB of shared memory in all without opting in, and the kernel's folds use some.)
inline constexpr size_t kFusedRowCacheBytes = 47 * 1024;

/// The reduction closing a kernel: op (float sum_dim, mean_dim, max_dim, min_dim, softmax, log_softmax) over
/// the value input (an op of the plan or a leaf, as KernelOp::inputs) of dtype; its result goes to
/// out[outputs.size()]. The reduced shape is [lanes / inner, red_n, red_inner] of the program's shape.
struct KernelReduce {
  OpId op;
  int input;
  DType dtype;
};

/// What a kernel computes: leaves' dtypes, ops in order, the ops whose values are stored (in out[k] order).
struct KernelPlan {
  std::vector<DType> leaves;
  std::vector<KernelOp> ops;
  std::vector<size_t> outputs;
  std::vector<DType> output_dtypes;
  bool contiguous = false;  // every leaf steps like the outputs: no offset arithmetic, kFusedLanes per thread
  std::optional<KernelReduce> reduce;  // set: the kernel ends in this reduction
  /// Ops applied to each result of the reduction (inputs: -1 its result, k >= 0 the k-th epilogue op); those of
  /// epilogue_outputs are stored after the reduction's result, at out[outputs.size() + 1 + k].
  std::vector<KernelOp> epilogue;
  std::vector<size_t> epilogue_outputs;
  std::vector<DType> epilogue_output_dtypes;
};

/// True when op is a reduction a generated kernel can close with.
bool is_generated_reduction(OpId op);

/// The name of the generated kernel's entry point.
inline constexpr const char* kFusedEntry = "scorch_fused";

/// The kernel's source, or nullopt when an op or dtype has no recipe (the program then runs unfused).
std::optional<std::string> generate_cuda_source(const KernelPlan& plan);

/// Fills params' scalar slots from the plan's ops, in the order the source reads them.
void fill_scalars(const KernelPlan& plan, FusedParams& params);

}  // namespace scorch::fusion
