#include "scorch/train/metric.h"

#include <cstdio>
#include <cxxabi.h>
#include <cstdlib>
#include <memory>

#include "scorch/train/learner_types.h"
#include "scorch/train/metric_format.h"

namespace scorch::train {

std::string format_value(double value, const FormatOptions& format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", format.precision, value);
  return format.unit.empty() ? std::string(buf) : std::string(buf) + " " + format.unit;
}

MetricEntry numeric_entry(double batch_value, double running_value, const FormatOptions& format, double weight) {
  char serialized[64];
  if (weight == 1) std::snprintf(serialized, sizeof serialized, "%.9g", batch_value);
  else std::snprintf(serialized, sizeof serialized, "%.9g,%.9g", batch_value, weight);
  MetricEntry entry;
  entry.name = format.name;
  entry.formatted = "epoch " + format_value(running_value, format) + " - batch " + format_value(batch_value, format);
  entry.serialized = serialized;
  entry.value = batch_value, entry.running = running_value, entry.weight = weight, entry.format = format;
  return entry;
}

MetricEntry NumericMetricState::update(double value, size_t batch_size, const FormatOptions& format) {
  sum_ += value * static_cast<double>(batch_size);
  count_ += batch_size;
  return numeric_entry(value, this->value(), format, static_cast<double>(batch_size));
}

std::string type_name(std::type_index type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(type.name());
}

}  // namespace scorch::train
