#pragma once
// Fusion<Cuda>'s executor: a program whose ops share one shape and all have a recipe (cuda_codegen.h) runs as one
// generated kernel, compiled by NVRTC on first use and cached in memory and on disk; so does a program closed by
// a float reduction (sum/mean/max/min along a dim, softmax, log-softmax) over such ops, with the elementwise ops
// after a sum/mean/max/min that read only its result. A float matrix product runs in cuBLASLt with the scale,
// bias, residual add and relu after it folded into its epilogue. Anything else (integer division, a compile
// failure: logged once) runs op after op on Cuda.
// SCORCH_FUSION_DUMP=1 prints each new kernel's source to stderr.
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/fusion/program.h"

namespace scorch::fusion {

template <> struct Executor<Cuda> : UnfusedExecutor<Cuda> {
  static constexpr bool kFusesReductions = true;
  /// The program's output values; counts a generated-kernel run in stats.
  static std::vector<Value<Cuda>> run(const Program<Cuda>& program, Stats& stats);
  /// The outputs of a program closed by a reduction as one generated kernel, or nullopt (see UnfusedExecutor).
  static std::optional<std::vector<Value<Cuda>>> run_reduction(const Program<Cuda>& program, Stats& stats);
  static constexpr bool kRecordsProducts = true;
  static constexpr bool kSplitsConvBias = true;
  /// True for sum/mean/max/min along a dim (their kernel applies the ops after them to each result).
  static bool fuses_after(OpId reduction);
  /// The product chain[0] with `· s` (first), `+ bias` (a computed row vector), `+ residual` (a computed tensor of
  /// its shape) and a last relu of chain[1..] folded into its cuBLASLt epilogue; see UnfusedExecutor.
  static std::pair<size_t, Value<Cuda>> run_head(const Program<Cuda>& program, const std::vector<Node<Cuda>*>& chain,
                                                 Stats& stats);
};

}  // namespace scorch::fusion
