#pragma once
// Attention dropout's mask, the same on every backend and in the backward: element `index` of the flattened
// [batch, heads, seq_q, seq_k] probabilities is kept when the SplitMix64 output for (seed, index) clears a threshold,
// so nothing of size seq² is stored and kernels draw it where they use it. Compiles under nvcc for device code.
#include <cstdint>

#include <string>

#include "scorch/backend/module_options.h"
#include "scorch/core/error.h"

#if defined(__CUDACC__)
#define SCORCH_DROPOUT_FN __host__ __device__ __forceinline__
#else
#define SCORCH_DROPOUT_FN inline
#endif

namespace scorch {

/// AttentionDropout in the form kernels read: keeps(index) and the factor 0 or 1 / (1 − prob).
struct DropoutMask {
  uint64_t seed = 0;
  uint32_t threshold = 0;  ///< a draw below it is dropped: prob · 2³²
  double kept_scale = 1.0;
  bool active = false;

  /// The mask of d (inactive for prob 0); throws ValueError unless 0 ≤ prob < 1.
  static DropoutMask of(const AttentionDropout& d) {
    if (!(d.prob >= 0.0 && d.prob < 1.0))
      throw ValueError("attention", "dropout must be in [0, 1), got " + std::to_string(d.prob));
    DropoutMask m;
    if (d.prob == 0.0) return m;
    double t = d.prob * 4294967296.0;
    m.threshold = t >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(t);
    m.kept_scale = 1.0 / (1.0 - d.prob);
    m.seed = d.seed;
    m.active = true;
    return m;
  }
  /// SplitMix64's output for state x (Steele, Lea and Flood, OOPSLA 2014).
  SCORCH_DROPOUT_FN static uint64_t mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  /// True when element index survives (always when inactive).
  SCORCH_DROPOUT_FN bool keeps(uint64_t index) const {
    if (!active) return true;
    auto draw = static_cast<uint32_t>(mix(seed + (index + 1) * 0x9e3779b97f4a7c15ull) >> 32);
    return draw >= threshold;
  }
  /// 0 for a dropped element, kept_scale for a kept one, in C.
  template <class C> SCORCH_DROPOUT_FN C factor(uint64_t index) const {
    return keeps(index) ? static_cast<C>(kept_scale) : C(0);
  }
};

}  // namespace scorch
