#pragma once
// Fusion<Cuda>'s executor: a program whose ops share one shape and all have a recipe (cuda_codegen.h) runs as one
// generated kernel, compiled by NVRTC on first use and cached in memory and on disk; so does a program closed by
// a float reduction (sum/mean/max/min along a dim, softmax, log-softmax) over such ops. Anything else (integer
// division, a compile failure: logged once) runs op after op on Cuda.
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
};

}  // namespace scorch::fusion
