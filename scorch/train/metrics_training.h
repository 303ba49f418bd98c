#pragma once
// Metrics about the optimization itself: loss, learning rate and iteration speed.
#include <chrono>

#include "scorch/train/metric.h"

namespace scorch::train {

/// The mean loss of a batch (a host value read from the loss tensor).
struct LossInput {
  double loss = 0;
};

/// The loss used for the backward pass; the epoch value is the mean over batches (each batch weighs 1).
class LossMetric final : public NumericMetric<LossInput> {
 public:
  std::string name() const override { return "Loss"; }
  MetricEntry update(const LossInput& input, const MetricMetadata& metadata) override;
  void clear() override { state_.reset(); }
  double value() const override { return state_.value(); }

 private:
  NumericMetricState state_;
};

/// The learning rate of each optimizer step (from the metadata).
class LearningRateMetric final : public NumericMetric<NoInput> {
 public:
  std::string name() const override { return "Learning Rate"; }
  MetricEntry update(const NoInput&, const MetricMetadata& metadata) override;
  void clear() override {
    state_.reset();
    last_ = 0;
  }
  double value() const override { return last_; }

 private:
  NumericMetricState state_;
  double last_ = 0;
};

/// Iterations per second since the start of the epoch.
class IterationSpeedMetric final : public NumericMetric<NoInput> {
 public:
  std::string name() const override { return "Iteration Speed"; }
  MetricEntry update(const NoInput&, const MetricMetadata& metadata) override;
  void clear() override {
    start_.reset();
    last_ = 0;
  }
  double value() const override { return last_; }

 private:
  std::optional<std::chrono::steady_clock::time_point> start_;
  double last_ = 0;
};

}  // namespace scorch::train
