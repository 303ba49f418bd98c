#pragma once
// Dynamic input quantization for the micro runtime's int8 layers: the hosted Cpu kernel's parameters and rounding
// (core/quant_params.h), so an int8 layer gives the hosted dynamic quantized layer's values.
#include <cstddef>
#include <cstdint>

#include "scorch/core/quant_params.h"
#include "scorch/micro/config.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// n rounded up to a multiple of 16.
constexpr uint64_t align16(uint64_t n) { return (n + 15) / 16 * 16; }

/// Maps floats to uint8 q minus the offset (an int16 in [−255, 255]) and integer sums back to floats.
class InputQuantizer {
 public:
  /// Parameters from the range of x[0, count) (widened to include 0, NaN skipped) over [0, 255].
  static InputQuantizer dynamic(const float* x, size_t count);
  /// v's uint8 value minus the offset.
  int16_t operator()(float v) const { return int16_t(quantize_affine(v, inverse_, zero_, 0.0f, 255.0f) - zero_); }
  /// A sum of (q − offset)·w as a float: sum·(scale·weight_scale), the hosted epilogue's order.
  float dequantize(int32_t sum, float weight_scale) const { return float(sum) * (params_.scale * weight_scale); }
  /// The scale and offset in use.
  const QuantParams& params() const { return params_; }

 private:
  QuantParams params_;
  float inverse_ = 1.0f, zero_ = 0.0f;
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
