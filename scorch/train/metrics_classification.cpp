#include "scorch/train/metrics_classification.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "scorch/core/error.h"
#include "scorch/train/metric_format.h"

namespace scorch::train {
namespace {

/// Checks that a [rows, cols] score matrix matches its targets; returns rows.
size_t checked_rows(const char* op, size_t values, size_t cols, size_t targets, bool targets_per_row) {
  if (cols == 0) throw ValueError(op, "the number of classes is 0");
  if (values % cols != 0)
    throw ShapeError(op,
                     std::to_string(values) + " scores do not split into rows of " + std::to_string(cols) + " classes");
  size_t rows = values / cols;
  size_t expected = targets_per_row ? rows : values;
  if (targets != expected)
    throw ShapeError(op, "scores [" + std::to_string(rows) + ", " + std::to_string(cols) + "] but " +
                             std::to_string(targets) + " targets");
  return rows;
}

/// Whether target is among the k highest of row (ties broken towards the lower index).
bool in_top_k(const float* row, size_t cols, int64_t target, size_t k) {
  if (target < 0 || static_cast<size_t>(target) >= cols) return false;
  float t = row[target];
  size_t better = 0;
  for (size_t c = 0; c < cols; ++c)
    if (row[c] > t || (row[c] == t && static_cast<int64_t>(c) < target)) ++better;
  return better < k;
}

MetricEntry top_k_update(const char* op, const AccuracyInput& input, size_t k, std::optional<int64_t> pad,
                         NumericMetricState& state, const std::string& name) {
  size_t rows = checked_rows(op, input.outputs.size(), input.num_classes, input.targets.size(), true);
  size_t counted = 0, correct = 0;
  for (size_t r = 0; r < rows; ++r) {
    if (pad && input.targets[r] == *pad) continue;
    ++counted;
    correct += in_top_k(input.outputs.data() + r * input.num_classes, input.num_classes, input.targets[r], k);
  }
  double batch = counted ? 100.0 * static_cast<double>(correct) / static_cast<double>(counted) : 0.0;
  return state.update(batch, counted, FormatOptions(name).with_unit("%"));
}

}  // namespace

MetricEntry AccuracyMetric::update(const AccuracyInput& input, const MetricMetadata&) {
  return top_k_update("AccuracyMetric::update", input, 1, pad_, state_, name());
}

TopKAccuracyMetric::TopKAccuracyMetric(size_t k) : k_(k) {
  if (k == 0) throw ValueError("TopKAccuracyMetric", "k must be at least 1");
}

MetricEntry TopKAccuracyMetric::update(const AccuracyInput& input, const MetricMetadata&) {
  if (k_ > input.num_classes)
    throw ValueError("TopKAccuracyMetric::update",
                     "k = " + std::to_string(k_) + " exceeds the " + std::to_string(input.num_classes) + " classes");
  return top_k_update("TopKAccuracyMetric::update", input, k_, pad_, state_, name());
}

void ConfusionCounts::add(const ConfusionStatsInput& input, const DecisionRule& rule) {
  const size_t cols = input.num_classes;
  size_t rows = checked_rows("ConfusionStatsInput", input.predictions.size(), cols, input.targets.size(), false);
  if (tp.size() != cols) tp.assign(cols, 0), fp.assign(cols, 0), fn.assign(cols, 0), tn.assign(cols, 0);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = input.predictions.data() + r * cols;
    for (size_t c = 0; c < cols; ++c) {
      bool predicted = std::holds_alternative<Threshold>(rule)
                           ? row[c] > std::get<Threshold>(rule).value
                           : in_top_k(row, cols, static_cast<int64_t>(c), std::get<TopK>(rule).k);
      bool actual = input.targets[r * cols + c] != 0;
      (predicted ? (actual ? tp : fp) : (actual ? fn : tn))[c] += 1;
    }
  }
}

ConfusionMetric::ConfusionMetric(Kind kind, ClassificationMetricConfig config, double beta, std::string name)
    : kind_(kind), config_(config), beta_(beta), name_(std::move(name)) {
  if (auto* t = std::get_if<TopK>(&config.decision_rule); t && t->k == 0)
    throw ValueError(name_, "top_k must be at least 1");
  if (!(beta > 0)) throw ValueError(name_, "beta must be positive, got " + std::to_string(beta));
}

double ConfusionMetric::compute(const ConfusionCounts& c) const {
  auto ratio = [](double num, double den) { return den > 0 ? num / den : 0.0; };
  auto score = [&](double tp, double fp, double fn) {
    double p = ratio(tp, tp + fp), r = ratio(tp, tp + fn), b2 = beta_ * beta_;
    if (kind_ == Kind::Precision) return p;
    if (kind_ == Kind::Recall) return r;
    return ratio((1 + b2) * p * r, b2 * p + r);
  };
  if (c.tp.empty()) return 0.0;
  if (config_.class_reduction == ClassReduction::Micro) {
    auto sum = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); };
    return 100.0 * score(sum(c.tp), sum(c.fp), sum(c.fn));
  }
  double total = 0;
  for (size_t k = 0; k < c.tp.size(); ++k) total += score(c.tp[k], c.fp[k], c.fn[k]);
  return 100.0 * total / static_cast<double>(c.tp.size());
}

MetricEntry ConfusionMetric::update(const ConfusionStatsInput& input, const MetricMetadata&) {
  ConfusionCounts batch;
  batch.add(input, config_.decision_rule);
  epoch_.add(input, config_.decision_rule);
  return numeric_entry(compute(batch), compute(epoch_), FormatOptions(name_).with_unit("%"));
}

FBetaScoreMetric::FBetaScoreMetric(double beta, ClassificationMetricConfig config)
    : ConfusionMetric(Kind::FBeta, config, beta,
                      beta == 1.0
                          ? "F1 Score"
                          : "F-beta Score (beta=" + format_value(beta, FormatOptions("").with_precision(2)) + ")") {}

MetricEntry HammingScore::update(const HammingScoreInput& input, const MetricMetadata&) {
  size_t rows =
      checked_rows("HammingScore::update", input.outputs.size(), input.num_labels, input.targets.size(), false);
  size_t right = 0;
  for (size_t i = 0; i < input.outputs.size(); ++i) {
    double v = input.outputs[i];
    if (sigmoid_) v = 1.0 / (1.0 + std::exp(-v));
    right += (v > threshold_) == (input.targets[i] != 0);
  }
  double batch =
      input.outputs.empty() ? 0.0 : 100.0 * static_cast<double>(right) / static_cast<double>(input.outputs.size());
  return state_.update(batch, rows, FormatOptions(name()).with_unit("%"));
}

double AurocMetric::compute(const std::vector<float>& scores, const std::vector<int64_t>& targets) {
  if (scores.size() != targets.size())
    throw ShapeError("AurocMetric",
                     std::to_string(scores.size()) + " scores but " + std::to_string(targets.size()) + " targets");
  std::vector<std::pair<float, bool>> rows(scores.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = {scores[i], targets[i] != 0};
  std::sort(rows.begin(), rows.end());
  double positives = 0, rank_sum = 0;
  for (size_t i = 0; i < rows.size();) {  // average ranks (from 1) over runs of equal scores
    size_t j = i;
    while (j < rows.size() && rows[j].first == rows[i].first) ++j;
    double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (rows[k].second) positives += 1, rank_sum += rank;
    i = j;
  }
  double negatives = static_cast<double>(rows.size()) - positives;
  if (positives == 0 || negatives == 0) return 50.0;
  return 100.0 * (rank_sum - positives * (positives + 1) / 2.0) / (positives * negatives);
}

MetricEntry AurocMetric::update(const AurocInput& input, const MetricMetadata&) {
  double batch = compute(input.scores, input.targets);
  scores_.insert(scores_.end(), input.scores.begin(), input.scores.end());
  targets_.insert(targets_.end(), input.targets.begin(), input.targets.end());
  return numeric_entry(batch, value(), FormatOptions(name()).with_unit("%"));
}

double AurocMetric::value() const { return compute(scores_, targets_); }

}  // namespace scorch::train
