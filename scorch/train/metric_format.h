#pragma once
// Formatting shared by the metrics: one value with its unit, and a numeric entry.
#include "scorch/train/metric.h"

namespace scorch::train {

/// value with format.precision decimals and format.unit.
std::string format_value(double value, const FormatOptions& format);
/// The entry of a numeric metric whose batch value is batch_value and epoch value running_value.
MetricEntry numeric_entry(double batch_value, double running_value, const FormatOptions& format, double weight = 1);

}  // namespace scorch::train
