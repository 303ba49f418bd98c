#pragma once
// Calibration observers: the range of values a layer's input takes over the calibration batches, from which static
// quantization picks the input's scale and offset (core/quant_scheme.h's choose_quant_params).
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "scorch/core/tensor_data.h"

namespace scorch::quant {

/// How an observer summarises the batches: min-max (the extremes seen), a moving average of each batch's extremes
/// (PyTorch's MovingAverageMinMaxObserver), or percentiles of the values (outliers clipped).
enum class ObserverKind : uint8_t { MinMax, MovingAverage, Percentile };

/// Settings of the observers of one calibration.
struct ObserverConfig {
  ObserverKind kind = ObserverKind::MinMax;
  /// MovingAverage: each batch moves the range this far toward its own.
  double averaging_constant = 0.01;
  /// Percentile: the range is [the (100 − p)th, the pth] percentile of the values seen.
  double percentile = 99.99;
  /// Percentile: values kept per batch at most (evenly strided), bounding memory.
  size_t samples_per_batch = 1 << 16;
};

/// The running summary of one layer's inputs.
class RangeObserver {
 public:
  explicit RangeObserver(ObserverConfig config = {}) : config_(config) {}
  /// Takes one batch (any float dtype; NaN and ±inf ignored). Throws ValueError for a bad configuration.
  void observe(const TensorData& batch);
  /// The observed [min, max]; {0, 0} before any value.
  std::pair<float, float> range() const;
  /// Batches observed so far.
  size_t batches() const { return batches_; }

 private:
  ObserverConfig config_;
  size_t batches_ = 0;
  bool any_ = false;
  float min_ = 0, max_ = 0;
  std::vector<float> samples_;
};

}  // namespace scorch::quant
