// InputQuantizer (quant.h).
#include "scorch/micro/quant.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

InputQuantizer InputQuantizer::dynamic(const float* x, size_t count) {
  float lo = 0.0f, hi = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    float v = x[i] != x[i] ? 0.0f : x[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  InputQuantizer q;
  q.params_ = choose_quant_params(lo, hi, QuantRange{0, 255});
  q.inverse_ = 1.0f / q.params_.scale;
  q.zero_ = float(q.params_.offset);
  return q;
}

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
