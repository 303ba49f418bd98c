#pragma once
// The Metric interface. A metric consumes one input type (host-side values adapted from a step
// output, or NoInput when it only needs the metadata), keeps its state over an epoch, and
// returns a MetricEntry per update. Numeric metrics also give a value that can be plotted.
#include <any>
#include <cstddef>
#include <optional>
#include <string>
#include <typeindex>

namespace scorch::train {

/// What the learner knows about the current iteration when a metric updates.
struct MetricMetadata {
  size_t items_processed = 0, items_total = 0;  // progress of the epoch, in items
  size_t epoch = 1, epoch_total = 1;            // from 1
  size_t iteration = 1;                         // iteration within the epoch, from 1
  std::optional<double> lr;                     // the learning rate of the step (training only)
};

/// How a numeric metric is shown: its name, unit and decimals.
struct FormatOptions {
  std::string name;
  std::string unit;
  int precision = 2;
  FormatOptions(std::string n) : name(std::move(n)) {}
  FormatOptions& with_unit(std::string u) {
    unit = std::move(u);
    return *this;
  }
  FormatOptions& with_precision(int p) {
    precision = p;
    return *this;
  }
};

/// One update's result: a display string and a serialized value for the loggers.
struct MetricEntry {
  std::string name;
  std::string formatted;          // e.g. "epoch 85.20 % - batch 87.50 %"
  std::string serialized;         // the batch value as written to the log files
  std::optional<double> value;    // the batch value when numeric
  std::optional<double> running;  // the epoch's running value when numeric
  double weight = 1;              // what the batch value counts for in the epoch's mean (its rows, for accuracy)
  std::optional<FormatOptions> format = {};  // how a numeric value is shown (to format values combined across ranks)
};

/// A running mean weighted by batch size, the state most numeric metrics share.
class NumericMetricState {
 public:
  /// Adds value (the mean over batch_size items) and returns the entry to display and log.
  MetricEntry update(double value, size_t batch_size, const FormatOptions& format);
  /// The mean over every item since the last reset (0 before any update).
  double value() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  void reset() {
    sum_ = 0;
    count_ = 0;
  }

 private:
  double sum_ = 0;
  size_t count_ = 0;
};

/// The input of metrics that only read the metadata (learning rate, speed, system metrics).
struct NoInput {};

/// The untyped face every metric shows to the learner.
class MetricBase {
 public:
  virtual ~MetricBase() = default;
  /// The name used for logs, plots and file names.
  virtual std::string name() const = 0;
  /// The input type the step output must adapt to.
  virtual std::type_index input_type() const = 0;
  /// Updates from an input of input_type() (nullptr for NoInput).
  virtual MetricEntry update_any(const std::any* input, const MetricMetadata& metadata) = 0;
  /// Forgets the state (called at the start of every epoch).
  virtual void clear() = 0;
  /// The epoch's value for numeric metrics, nullopt otherwise.
  virtual std::optional<double> numeric_value() const { return std::nullopt; }
};

/// A metric over inputs of type I (the Burn Book's Metric trait).
template <class I> class Metric : public MetricBase {
 public:
  using Input = I;
  /// Updates the state with one batch and returns the current entry.
  virtual MetricEntry update(const I& input, const MetricMetadata& metadata) = 0;
  std::type_index input_type() const override { return typeid(I); }
  MetricEntry update_any(const std::any* input, const MetricMetadata& metadata) override {
    if constexpr (std::is_same_v<I, NoInput>) return update(NoInput{}, metadata);
    else return update(std::any_cast<const I&>(*input), metadata);
  }
};

/// Metrics that can be plotted: value() is the epoch's running value.
class Numeric {
 public:
  virtual ~Numeric() = default;
  virtual double value() const = 0;
};

/// A numeric metric over inputs of type I.
template <class I> class NumericMetric : public Metric<I>, public Numeric {
 public:
  std::optional<double> numeric_value() const override { return this->value(); }
};

/// Converts a step output O to a metric input I; output types specialize it for each input
/// they provide and list those inputs in `using Adapts = std::tuple<...>`.
template <class O, class I> struct Adaptor;

}  // namespace scorch::train
