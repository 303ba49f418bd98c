#include "scorch/train/metrics_training.h"

#include "scorch/train/metric_format.h"

namespace scorch::train {

MetricEntry LossMetric::update(const LossInput& input, const MetricMetadata&) {
  return state_.update(input.loss, 1, FormatOptions(name()).with_precision(4));
}

MetricEntry LearningRateMetric::update(const NoInput&, const MetricMetadata& metadata) {
  if (!metadata.lr) return {name(), "n/a", "", std::nullopt, std::nullopt};
  last_ = *metadata.lr;
  auto entry = state_.update(last_, 1, FormatOptions(name()).with_precision(8));
  entry.running = last_;
  entry.formatted = format_value(last_, FormatOptions(name()).with_precision(8));
  return entry;
}

MetricEntry IterationSpeedMetric::update(const NoInput&, const MetricMetadata& metadata) {
  auto now = std::chrono::steady_clock::now();
  if (!start_) start_ = now;
  double seconds = std::chrono::duration<double>(now - *start_).count();
  // The first iteration of an epoch starts the clock; speed counts the iterations after it.
  last_ = seconds > 0 ? static_cast<double>(metadata.iteration - 1) / seconds : 0.0;
  auto format = FormatOptions(name()).with_unit("iter/sec");
  return numeric_entry(last_, last_, format);
}

}  // namespace scorch::train
