#pragma once
// Fusion<Cuda>'s executor: a program whose ops share one shape and all have a recipe (cuda_codegen.h) runs as one
// generated kernel, compiled by NVRTC on first use and cached in memory by its source; anything else (f16/bf16,
// casts, clamps, integer division, a compile failure: logged once) runs op after op on Cuda.
// SCORCH_FUSION_DUMP=1 prints each new kernel's source to stderr.
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/fusion/program.h"

namespace scorch::fusion {

template <> struct Executor<Cuda> {
  /// The program's output values; counts a generated-kernel run in stats.
  static std::vector<Value<Cuda>> run(const Program<Cuda>& program, Stats& stats);
};

}  // namespace scorch::fusion
