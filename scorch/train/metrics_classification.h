#pragma once
// Classification metrics over host-side inputs: accuracy (top-1 and top-k), precision, recall,
// F-beta (binary, multiclass and multilabel; macro or micro over classes), Hamming score and
// binary AUROC. Epoch values come from counts accumulated over the epoch, not batch means.
#include <cstdint>
#include <variant>
#include <vector>

#include "scorch/train/metric.h"

namespace scorch::train {

/// Scores [rows, num_classes] (row-major) and the target class of each row.
struct AccuracyInput {
  std::vector<float> outputs;
  size_t num_classes = 0;
  std::vector<int64_t> targets;
};

/// The share of rows whose highest score is the target, in percent.
class AccuracyMetric final : public NumericMetric<AccuracyInput> {
 public:
  /// Rows whose target is pad_token are left out (sequence padding).
  AccuracyMetric& with_pad_token(int64_t pad_token) {
    pad_ = pad_token;
    return *this;
  }
  std::string name() const override { return "Accuracy"; }
  MetricEntry update(const AccuracyInput& input, const MetricMetadata& metadata) override;
  void clear() override { state_.reset(); }
  double value() const override { return state_.value(); }

 private:
  std::optional<int64_t> pad_;
  NumericMetricState state_;
};

/// The share of rows whose target is among the k highest scores, in percent.
class TopKAccuracyMetric final : public NumericMetric<AccuracyInput> {
 public:
  explicit TopKAccuracyMetric(size_t k);
  TopKAccuracyMetric& with_pad_token(int64_t pad_token) {
    pad_ = pad_token;
    return *this;
  }
  std::string name() const override { return "Top-" + std::to_string(k_) + " Accuracy"; }
  MetricEntry update(const AccuracyInput& input, const MetricMetadata& metadata) override;
  void clear() override { state_.reset(); }
  double value() const override { return state_.value(); }

 private:
  size_t k_;
  std::optional<int64_t> pad_;
  NumericMetricState state_;
};

/// Scores [rows, num_classes] and 0/1 targets of the same shape (one-hot or multilabel).
struct ConfusionStatsInput {
  std::vector<float> predictions;
  std::vector<uint8_t> targets;
  size_t num_classes = 0;
};

/// A score counts as a positive prediction above a threshold, or when among a row's top k.
struct Threshold {
  double value = 0.5;
};
struct TopK {
  size_t k = 1;
};
using DecisionRule = std::variant<Threshold, TopK>;
/// Macro: the mean of per-class values; Micro: one value from counts pooled over classes.
enum class ClassReduction { Macro, Micro };

/// How predictions are decided and classes combined.
struct ClassificationMetricConfig {
  DecisionRule decision_rule = Threshold{0.5};
  ClassReduction class_reduction = ClassReduction::Macro;
};

/// True/false positives and negatives per class.
struct ConfusionCounts {
  std::vector<double> tp, fp, fn, tn;
  void add(const ConfusionStatsInput& input, const DecisionRule& rule);
  void reset() {
    tp.clear();
    fp.clear();
    fn.clear();
    tn.clear();
  }
};

/// Precision, recall and F-beta share their counting; Kind picks the formula.
class ConfusionMetric : public NumericMetric<ConfusionStatsInput> {
 public:
  enum class Kind { Precision, Recall, FBeta };
  MetricEntry update(const ConfusionStatsInput& input, const MetricMetadata& metadata) override;
  void clear() override { epoch_.reset(); }
  double value() const override { return compute(epoch_); }
  std::string name() const override { return name_; }

 protected:
  ConfusionMetric(Kind kind, ClassificationMetricConfig config, double beta, std::string name);
  /// The metric in percent from counts (a class with a zero denominator counts as 0).
  double compute(const ConfusionCounts& counts) const;

 private:
  Kind kind_;
  ClassificationMetricConfig config_;
  double beta_;
  std::string name_;
  ConfusionCounts epoch_;
};

/// Helper constructors shared by the three confusion metrics.
template <class Self> struct ConfusionConstructors {
  /// One output column: positive when the score exceeds threshold.
  static Self binary(double threshold = 0.5) { return Self({Threshold{threshold}, ClassReduction::Micro}); }
  /// One class per row: the top_k highest scores are the predictions.
  static Self multiclass(size_t top_k = 1, ClassReduction reduction = ClassReduction::Macro) {
    return Self({TopK{top_k}, reduction});
  }
  /// Any number of classes per row: every score above threshold is a prediction.
  static Self multilabel(double threshold = 0.5, ClassReduction reduction = ClassReduction::Macro) {
    return Self({Threshold{threshold}, reduction});
  }
};

/// tp / (tp + fp), in percent.
class PrecisionMetric final : public ConfusionMetric, public ConfusionConstructors<PrecisionMetric> {
 public:
  explicit PrecisionMetric(ClassificationMetricConfig config = {})
      : ConfusionMetric(Kind::Precision, config, 1.0, "Precision") {}
};
/// tp / (tp + fn), in percent.
class RecallMetric final : public ConfusionMetric, public ConfusionConstructors<RecallMetric> {
 public:
  explicit RecallMetric(ClassificationMetricConfig config = {})
      : ConfusionMetric(Kind::Recall, config, 1.0, "Recall") {}
};
/// (1 + β²)·P·R / (β²·P + R), in percent.
class FBetaScoreMetric final : public ConfusionMetric {
 public:
  explicit FBetaScoreMetric(double beta = 1.0, ClassificationMetricConfig config = {});
  static FBetaScoreMetric binary(double beta = 1.0, double threshold = 0.5) {
    return FBetaScoreMetric(beta, {Threshold{threshold}, ClassReduction::Micro});
  }
  static FBetaScoreMetric multiclass(double beta = 1.0, size_t top_k = 1, ClassReduction r = ClassReduction::Macro) {
    return FBetaScoreMetric(beta, {TopK{top_k}, r});
  }
  static FBetaScoreMetric multilabel(double beta = 1.0, double threshold = 0.5,
                                     ClassReduction r = ClassReduction::Macro) {
    return FBetaScoreMetric(beta, {Threshold{threshold}, r});
  }
};

/// Multilabel scores [rows, num_labels] and 0/1 targets of the same shape.
struct HammingScoreInput {
  std::vector<float> outputs;
  std::vector<uint8_t> targets;
  size_t num_labels = 0;
};

/// The share of labels predicted right (1 − Hamming loss), in percent.
class HammingScore final : public NumericMetric<HammingScoreInput> {
 public:
  HammingScore& with_threshold(double t) {
    threshold_ = t;
    return *this;
  }
  /// Applies a sigmoid to the outputs before thresholding (for logits).
  HammingScore& with_sigmoid(bool on) {
    sigmoid_ = on;
    return *this;
  }
  std::string name() const override { return "Hamming Score"; }
  MetricEntry update(const HammingScoreInput& input, const MetricMetadata& metadata) override;
  void clear() override { state_.reset(); }
  double value() const override { return state_.value(); }

 private:
  double threshold_ = 0.5;
  bool sigmoid_ = false;
  NumericMetricState state_;
};

/// Binary classification: the positive-class score of each row and its 0/1 target.
struct AurocInput {
  std::vector<float> scores;
  std::vector<int64_t> targets;
};

/// Area under the ROC curve in percent, over every row of the epoch (ties share ranks; 50 when
/// only one class has been seen).
class AurocMetric final : public NumericMetric<AurocInput> {
 public:
  std::string name() const override { return "AUROC"; }
  MetricEntry update(const AurocInput& input, const MetricMetadata& metadata) override;
  void clear() override {
    scores_.clear();
    targets_.clear();
  }
  double value() const override;
  /// The AUROC of one set of scores and 0/1 targets, in percent.
  static double compute(const std::vector<float>& scores, const std::vector<int64_t>& targets);

 private:
  std::vector<float> scores_;
  std::vector<int64_t> targets_;
};

}  // namespace scorch::train
