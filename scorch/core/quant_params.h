#pragma once
// Affine quantization parameters and PyTorch's (fbgemm's) way of choosing them, shared by the hosted kernels and the
// freestanding micro runtime (no heap, no exceptions).
#include <cmath>
#include <cstdint>

namespace scorch {

/// The integer range [qmin, qmax] of a value type.
struct QuantRange {
  int64_t qmin, qmax;
};

/// One scale and offset (zero point): x ≈ (q − offset)·scale.
struct QuantParams {
  float scale = 1.0f;
  int64_t offset = 0;
};

/// PyTorch's (fbgemm's) affine parameters for values in [min, max] (widened to include 0) over range: a scale of at
/// least 6.1e-5 (0.1 when the range is empty) and the integer offset nearest the one that maps 0 exactly.
QuantParams choose_quant_params(float min, float max, QuantRange range);

/// x quantized with 1/scale = inverse and offset zero, clamped to [lo, hi] (NaN → zero): a float holding an
/// integer.
inline float quantize_affine(float x, float inverse, float zero, float lo, float hi) {
  float scaled = x * inverse;
  float q = std::nearbyint(std::isnan(scaled) ? 0.0f : scaled) + zero;
  return q < lo ? lo : (q > hi ? hi : q);
}

}  // namespace scorch
