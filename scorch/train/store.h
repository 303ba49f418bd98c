#pragma once
// Every numeric value logged during a run, by split, metric and epoch. An epoch's value is the
// mean of its iteration values (Burn's Aggregate::Mean); plots, summaries, the best-checkpoint
// policy and early stopping all read it from here.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scorch/core/value_members.h"

namespace scorch::train {

enum class Split { Train, Valid };
/// "train" or "valid", as the artifact folders are named.
const char* split_name(Split split);
/// How iteration values become an epoch value.
enum class Aggregate { Mean };
/// Which way is better for a metric.
enum class Direction { Lowest, Highest };

class MetricsStore {
 public:
  SCORCH_VALUE_MEMBERS(MetricsStore);  // defaulted in the .cpp
  /// Records one iteration value of metric name in epoch (from 1), counting weight in the epoch's mean (the
  /// batch's rows for a per-row metric, so a short last batch counts for its rows only).
  void add(Split split, const std::string& name, size_t epoch, double value, double weight = 1);
  /// Replaces an epoch's iteration values and their weights (all 1 when empty; used when reading logs back on
  /// resume); ValueError unless weights is empty or as long as values.
  void set_epoch(Split split, const std::string& name, size_t epoch, std::vector<double> values,
                 std::vector<double> weights = {});
  /// Forgets every value of epoch and later (a resumed run redoes them).
  void drop_from(size_t epoch);
  /// The aggregate of an epoch (Mean: the iteration values' weighted mean), nullopt when nothing was logged.
  std::optional<double> epoch_value(Split split, const std::string& name, size_t epoch,
                                    Aggregate aggregate = Aggregate::Mean) const;
  /// (epoch, value) for every epoch with values, in order.
  std::vector<std::pair<size_t, double>> epoch_values(Split split, const std::string& name) const;
  /// The iteration values of one epoch.
  std::vector<double> iteration_values(Split split, const std::string& name, size_t epoch) const;
  /// Every iteration value of the run, epoch after epoch.
  std::vector<double> all_iteration_values(Split split, const std::string& name) const;
  /// Metric names with at least one value, in first-logged order.
  std::vector<std::string> names() const;

 private:
  using Epochs = std::map<size_t, std::vector<double>>;
  const Epochs* find(Split split, const std::string& name) const;
  std::map<std::pair<Split, std::string>, Epochs> values_, weights_;
  std::vector<std::string> order_;
};

}  // namespace scorch::train
