#include "scorch/quant/observer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "scorch/core/error.h"

namespace scorch::quant {
namespace {

// The value at fraction q in [0, 1] of sorted order (nearest rank), reordering values.
float quantile(std::vector<float>& values, double q) {
  size_t i = static_cast<size_t>(std::llround(q * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + static_cast<ptrdiff_t>(i), values.end());
  return values[i];
}

}  // namespace

void RangeObserver::observe(const TensorData& batch) {
  double c = config_.averaging_constant;
  if (config_.kind == ObserverKind::MovingAverage && !(c > 0 && c <= 1))
    throw ValueError("RangeObserver::observe",
                     "averaging constant " + std::to_string(config_.averaging_constant) + " is outside (0, 1]");
  if (config_.kind == ObserverKind::Percentile && !(config_.percentile > 50 && config_.percentile <= 100))
    throw ValueError("RangeObserver::observe",
                     "percentile " + std::to_string(config_.percentile) + " is outside (50, 100]");
  if (!is_float(batch.dtype())) throw DTypeError("RangeObserver::observe", "the input must be float");
  std::vector<float> values = batch.convert(DType::F32).to_vector<float>();
  std::erase_if(values, [](float v) { return !std::isfinite(v); });  // a range of finite values only
  ++batches_;
  if (values.empty()) return;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (config_.kind == ObserverKind::Percentile) {
    size_t stride = std::max<size_t>(1, values.size() / std::max<size_t>(1, config_.samples_per_batch));
    for (size_t i = 0; i < values.size(); i += stride) samples_.push_back(values[i]);
  } else if (config_.kind == ObserverKind::MovingAverage && any_) {
    auto c = static_cast<float>(config_.averaging_constant);
    min_ += c * (*lo - min_);
    max_ += c * (*hi - max_);
  } else {
    min_ = any_ ? std::min(min_, *lo) : *lo;
    max_ = any_ ? std::max(max_, *hi) : *hi;
  }
  any_ = true;
}

std::pair<float, float> RangeObserver::range() const {
  if (!any_) return {0.0f, 0.0f};
  if (config_.kind != ObserverKind::Percentile) return {min_, max_};
  std::vector<float> values = samples_;
  double q = config_.percentile / 100.0;
  float lo = quantile(values, 1.0 - q);
  float hi = quantile(values, q);
  return {lo, hi};
}

}  // namespace scorch::quant
