// choose_quant_params (quant_params.h).
#include "scorch/core/quant_params.h"

namespace scorch {

QuantParams choose_quant_params(float min, float max, QuantRange range) {
  constexpr float kSmallScale = 6.1e-5f;
  auto qmin = static_cast<double>(range.qmin), qmax = static_cast<double>(range.qmax);
  min = std::isnan(min) ? 0.0f : (min < 0.0f ? min : 0.0f);  // NaN says nothing about the range
  max = std::isnan(max) ? 0.0f : (max > 0.0f ? max : 0.0f);
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (!(std::isfinite(scale)) || static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale)))
    scale = 0.1;
  if (scale < kSmallScale) {  // widen the range so the scale is kSmallScale
    float amplifier = kSmallScale / static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) max = static_cast<float>(kSmallScale * (qmax - qmin));
    else if (max == 0.0f) min = static_cast<float>(-kSmallScale * (qmax - qmin));
    else min *= amplifier, max *= amplifier;
  }
  double from_min = qmin - min / scale, from_max = qmax - max / scale;
  double min_error = std::fabs(qmin) - std::fabs(min / scale), max_error = std::fabs(qmax) - std::fabs(max / scale);
  double initial = min_error < max_error ? from_min : from_max;
  if (std::isnan(initial)) initial = qmin;
  int64_t offset = initial < qmin   ? range.qmin
                   : initial > qmax ? range.qmax
                                    : static_cast<int64_t>(std::nearbyint(initial));
  return {static_cast<float>(scale), offset};
}

}  // namespace scorch
