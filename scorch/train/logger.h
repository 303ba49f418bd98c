#pragma once
// Metric loggers: FileMetricLogger writes {dir}/{train|valid}/epoch-N/{Metric}.log (one batch value
// per line, followed by ",weight" when it counts for more than 1 in the epoch's mean; the Burn Book's layout);
// InMemoryMetricLogger keeps the entries. Both can give numeric values back, which is how a resumed run continues its
// curves. ExperimentLog appends timestamped lines to experiment.log.
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "scorch/train/metric.h"
#include "scorch/train/store.h"

namespace scorch::train {

class MetricLogger {
 public:
  virtual ~MetricLogger() = default;
  /// Logs one iteration's entry.
  virtual void log(Split split, size_t epoch, const MetricEntry& entry) = 0;
  /// Flushes what the epoch logged.
  virtual void end_epoch(Split split, size_t epoch) = 0;
  /// The numeric values logged for name in epoch, nullopt when this logger has none.
  virtual std::optional<std::vector<double>> read_numeric(Split split, const std::string& name, size_t epoch) const = 0;
  /// The weights of those values (MetricEntry::weight), nullopt when this logger did not keep them.
  virtual std::optional<std::vector<double>> read_weights(Split, const std::string&, size_t) const {
    return std::nullopt;
  }
};

class FileMetricLogger final : public MetricLogger {
 public:
  explicit FileMetricLogger(std::string directory) : dir_(std::move(directory)) {}
  /// The first entry of an epoch in this run replaces what an interrupted run left there.
  void log(Split split, size_t epoch, const MetricEntry& entry) override;
  void end_epoch(Split split, size_t epoch) override;
  std::optional<std::vector<double>> read_numeric(Split split, const std::string& name, size_t epoch) const override;
  /// Lines "value,weight" give their weight, lines "value" 1.
  std::optional<std::vector<double>> read_weights(Split split, const std::string& name, size_t epoch) const override;
  /// The log file of a metric: dir/split/epoch-N/name.log ('/' in names becomes '_').
  std::string file(Split split, const std::string& name, size_t epoch) const;

 private:
  std::string dir_;
  std::map<std::string, std::ofstream> open_;
  std::set<std::pair<Split, size_t>> started_;
};

class InMemoryMetricLogger final : public MetricLogger {
 public:
  void log(Split split, size_t epoch, const MetricEntry& entry) override;
  void end_epoch(Split, size_t) override {}
  std::optional<std::vector<double>> read_numeric(Split split, const std::string& name, size_t epoch) const override {
    return numeric(split, name, epoch, false);
  }
  std::optional<std::vector<double>> read_weights(Split split, const std::string& name, size_t epoch) const override {
    return numeric(split, name, epoch, true);
  }
  /// Every entry logged for (split, epoch), in order.
  std::vector<MetricEntry> entries(Split split, size_t epoch) const;

 private:
  /// The numeric entries' values (or weights) for name in (split, epoch), nullopt when there are none.
  std::optional<std::vector<double>> numeric(Split split, const std::string& name, size_t epoch, bool weights) const;
  std::map<std::pair<Split, size_t>, std::vector<MetricEntry>> entries_;
};

/// Timestamped lines appended to a file (the artifact directory's experiment.log); thread-safe.
class ExperimentLog {
 public:
  /// Appends to file (an empty name: writes nothing, as on data-parallel ranks other than 0).
  explicit ExperimentLog(std::string file) : file_(std::move(file)) {}
  void info(const std::string& line);

 private:
  std::string file_;
  std::mutex mutex_;
};

}  // namespace scorch::train
