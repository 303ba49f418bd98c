// Every metric against values computed by hand (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "support/temp_dir.h"

using namespace scorch;
using namespace scorch::train;

namespace {

MetricMetadata meta(size_t iteration = 1, std::optional<double> lr = std::nullopt) {
  MetricMetadata m;
  m.iteration = iteration;
  m.lr = lr;
  return m;
}

// Rows: argmax 1, 0, 2, 2; second-best 2, 2, 1, 0.
AccuracyInput four_rows(std::vector<int64_t> targets) {
  return {
      {0.1f, 0.7f, 0.2f, /**/ 0.6f, 0.1f, 0.3f, /**/ 0.2f, 0.3f, 0.5f, /**/ 0.3f, 0.1f, 0.6f}, 3, std::move(targets)};
}

std::filesystem::path metrics_dir(const std::string& name) {
  return scorch::testing::fresh_temp_dir("metrics-" + name);
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace

TEST(Metrics, AccuracyIsTheShareOfRowsWhoseArgmaxIsTheTarget) {
  AccuracyMetric accuracy;
  auto e = accuracy.update(four_rows({1, 0, 0, 2}), meta());  // rows 0, 1, 3 right: 3/4
  EXPECT_DOUBLE_EQ(*e.value, 75.0);
  EXPECT_EQ(e.name, "Accuracy");
  EXPECT_EQ(e.serialized, "75,4");  // the batch value and its rows, its weight in the epoch's mean
  EXPECT_EQ(e.formatted, "epoch 75.00 % - batch 75.00 %");
  // A second batch of 2 rows, 0 right: the epoch is 3 of 6 rows.
  e = accuracy.update({{0.9f, 0.1f, 0.0f, 0.9f, 0.1f, 0.0f}, 3, {1, 2}}, meta(2));
  EXPECT_DOUBLE_EQ(*e.value, 0.0);
  EXPECT_DOUBLE_EQ(accuracy.value(), 50.0);
  accuracy.clear();
  EXPECT_DOUBLE_EQ(accuracy.value(), 0.0);
}

TEST(Metrics, EpochValuesWeighEachBatchByItsRowsAndResumeTheSameFromTheLogs) {
  AccuracyMetric accuracy;
  MetricsStore store;
  auto dir = metrics_dir("weights");
  FileMetricLogger logger(dir.string());
  for (auto entry : {accuracy.update(four_rows({1, 0, 0, 2}), meta()),                                // 3 of 4
                     accuracy.update({{0.9f, 0.1f, 0.0f, 0.9f, 0.1f, 0.0f}, 3, {1, 2}}, meta(2))}) {  // 0 of 2
    store.add(Split::Valid, entry.name, 1, *entry.value, entry.weight);
    logger.log(Split::Valid, 1, entry);
  }
  logger.end_epoch(Split::Valid, 1);
  EXPECT_DOUBLE_EQ(*store.epoch_value(Split::Valid, "Accuracy", 1), 50.0);  // 3 of 6 rows, not (75 + 0) / 2
  // A resumed run reads the same epoch value back from the log lines "75,4" and "0,2".
  MetricsStore resumed;
  resumed.set_epoch(Split::Valid, "Accuracy", 1, *logger.read_numeric(Split::Valid, "Accuracy", 1),
                    *logger.read_weights(Split::Valid, "Accuracy", 1));
  EXPECT_DOUBLE_EQ(*resumed.epoch_value(Split::Valid, "Accuracy", 1), 50.0);
  EXPECT_EQ(resumed.iteration_values(Split::Valid, "Accuracy", 1), (std::vector<double>{75.0, 0.0}));
  // Logs of a metric that counts each batch once (the loss) have no weights: a plain mean.
  resumed.set_epoch(Split::Train, "Loss", 1, {1.0, 2.0});
  EXPECT_DOUBLE_EQ(*resumed.epoch_value(Split::Train, "Loss", 1), 1.5);
  EXPECT_THROW(resumed.set_epoch(Split::Train, "Loss", 2, {1.0, 2.0}, {1.0}), ValueError);
  write(dir / "valid/epoch-1/Accuracy.log", "75,4x\n");  // not a "value[,weight]" line: not numeric
  EXPECT_FALSE(logger.read_numeric(Split::Valid, "Accuracy", 1).has_value());
}

TEST(Metrics, AccuracySkipsThePadToken) {
  auto accuracy = AccuracyMetric().with_pad_token(0);
  auto e = accuracy.update(four_rows({1, 0, 0, 0}), meta());  // only row 0 counts: right
  EXPECT_DOUBLE_EQ(*e.value, 100.0);
}

TEST(Metrics, TopKAccuracyCountsTargetsAmongTheKBest) {
  TopKAccuracyMetric top2(2);
  // targets 2 (2nd best: in), 2 (2nd best: in), 1 (2nd best: in), 1 (worst: out) -> 75%
  EXPECT_DOUBLE_EQ(*top2.update(four_rows({2, 2, 1, 1}), meta()).value, 75.0);
  EXPECT_EQ(top2.name(), "Top-2 Accuracy");
  EXPECT_THROW(TopKAccuracyMetric(0), ValueError);
  TopKAccuracyMetric top4(4);
  EXPECT_THROW(top4.update(four_rows({0, 0, 0, 0}), meta()), ValueError);
}

TEST(Metrics, AccuracyRejectsMismatchedShapes) {
  AccuracyMetric accuracy;
  try {
    accuracy.update({{0.1f, 0.2f, 0.3f}, 3, {0, 1}}, meta());
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("scores [1, 3] but 2 targets"), std::string::npos) << e.what();
  }
}

// Multiclass, top-1 predictions 1, 0, 2, 2 against targets 1, 0, 0, 2:
//   class 0: tp 1 fp 0 fn 1 -> P 1,   R 0.5
//   class 1: tp 1 fp 0 fn 0 -> P 1,   R 1
//   class 2: tp 1 fp 1 fn 0 -> P 0.5, R 1
//   macro P = 2.5/3, macro R = 2.5/3; micro: tp 3 fp 1 fn 1 -> P = R = 0.75
ConfusionStatsInput confusion_rows() {
  auto a = four_rows({1, 0, 0, 2});
  std::vector<uint8_t> one_hot(12, 0);
  for (size_t r = 0; r < 4; ++r) one_hot[r * 3 + static_cast<size_t>(a.targets[r])] = 1;
  return {a.outputs, one_hot, 3};
}

TEST(Metrics, PrecisionAndRecallMacroAndMicro) {
  auto p_macro = PrecisionMetric::multiclass(1, ClassReduction::Macro);
  auto r_macro = RecallMetric::multiclass(1, ClassReduction::Macro);
  auto p_micro = PrecisionMetric::multiclass(1, ClassReduction::Micro);
  EXPECT_NEAR(*p_macro.update(confusion_rows(), meta()).value, 100.0 * 2.5 / 3, 1e-9);
  EXPECT_NEAR(*r_macro.update(confusion_rows(), meta()).value, 100.0 * 2.5 / 3, 1e-9);
  EXPECT_NEAR(*p_micro.update(confusion_rows(), meta()).value, 75.0, 1e-9);
}

TEST(Metrics, FBetaCombinesPrecisionAndRecallPerClass) {
  // F1 per class: 2·1·0.5/1.5 = 2/3, 1, 2·0.5·1/1.5 = 2/3 -> macro (4/3 + 1)/3 = 7/9
  auto f1 = FBetaScoreMetric::multiclass(1.0, 1, ClassReduction::Macro);
  EXPECT_NEAR(*f1.update(confusion_rows(), meta()).value, 100.0 * 7.0 / 9.0, 1e-9);
  EXPECT_EQ(f1.name(), "F1 Score");
  // F2 of class 0: 5·1·0.5/(4·1 + 0.5) = 5/9; class 1: 1; class 2: 5·0.5/(2 + 1) = 5/6
  auto f2 = FBetaScoreMetric::multiclass(2.0, 1, ClassReduction::Macro);
  EXPECT_NEAR(*f2.update(confusion_rows(), meta()).value, 100.0 * (5.0 / 9 + 1 + 5.0 / 6) / 3, 1e-9);
  EXPECT_THROW(FBetaScoreMetric(0.0), ValueError);
}

TEST(Metrics, BinaryAndMultilabelUseAThreshold) {
  // Binary scores .9 .4 .6 .2, targets 1 1 0 0: predicted 1 0 1 0 -> tp 1 fp 1 fn 1
  ConfusionStatsInput binary{{0.9f, 0.4f, 0.6f, 0.2f}, {1, 1, 0, 0}, 1};
  auto p = PrecisionMetric::binary(0.5);
  EXPECT_NEAR(*p.update(binary, meta()).value, 50.0, 1e-9);
  auto r = RecallMetric::binary(0.3);  // predicted 1 1 1 0 -> tp 2 fn 0
  EXPECT_NEAR(*r.update(binary, meta()).value, 100.0, 1e-9);
  // Multilabel, 2 rows x 2 labels: scores [.8 .7; .1 .6], targets [1 0; 0 1]
  // label 0: tp 1; label 1: tp 1 fp 1 -> macro precision (1 + .5)/2
  ConfusionStatsInput multilabel{{0.8f, 0.7f, 0.1f, 0.6f}, {1, 0, 0, 1}, 2};
  auto pm = PrecisionMetric::multilabel(0.5);
  EXPECT_NEAR(*pm.update(multilabel, meta()).value, 75.0, 1e-9);
}

TEST(Metrics, ConfusionEpochValueUsesPooledCounts) {
  auto p = PrecisionMetric::binary();
  p.update({{0.9f}, {1}, 1}, meta());           // tp 1
  p.update({{0.9f, 0.8f}, {0, 0}, 1}, meta());  // fp 2 -> epoch 1/3 (mean of batches would be 50)
  EXPECT_NEAR(p.value(), 100.0 / 3, 1e-9);
}

TEST(Metrics, HammingScoreIsTheShareOfLabelsRight) {
  HammingScore hamming;
  // outputs [.8 .7; .1 .6] > .5 -> [1 1; 0 1] vs [1 0; 0 1]: 3 of 4 right
  EXPECT_DOUBLE_EQ(*hamming.update({{0.8f, 0.7f, 0.1f, 0.6f}, {1, 0, 0, 1}, 2}, meta()).value, 75.0);
  auto logits = HammingScore().with_sigmoid(true);
  // sigmoid(2) > .5, sigmoid(-1) < .5, sigmoid(0) = .5 not > .5
  EXPECT_NEAR(*logits.update({{2.0f, -1.0f, 0.0f}, {1, 1, 0}, 3}, meta()).value, 200.0 / 3, 1e-9);
}

TEST(Metrics, AurocRanksPositivesAboveNegatives) {
  // Positives .8 .4, negatives .6 .2: pairs (.8>.6) (.8>.2) (.4<.6) (.4>.2) -> 3/4
  EXPECT_NEAR(AurocMetric::compute({0.8f, 0.6f, 0.4f, 0.2f}, {1, 0, 1, 0}), 75.0, 1e-9);
  // A tie between a positive and a negative counts one half: positives .5 .9, negatives .5 .1 -> (0.5 + 1 + 1 + 1)/4
  // (the targets are not written {1, 1, 0, 0}: g++ 12 with -O2 -march=native on AVX-512 builds that
  // initializer list as {1, 1, 1, 1} in a file that includes gtest.h)
  EXPECT_NEAR(AurocMetric::compute({0.5f, 0.5f, 0.9f, 0.1f}, {1, 0, 1, 0}), 87.5, 1e-9);
  EXPECT_DOUBLE_EQ(AurocMetric::compute({0.1f, 0.2f}, {1, 1}), 50.0);
  AurocMetric auroc;
  auroc.update({{0.8f, 0.6f}, {1, 0}}, meta());
  auroc.update({{0.4f, 0.2f}, {1, 0}}, meta());
  EXPECT_NEAR(auroc.value(), 75.0, 1e-9);  // over the epoch's four rows, not a mean of batches (100, 100)
}

TEST(Metrics, LossLearningRateAndSpeed) {
  LossMetric loss;
  loss.update({2.0}, meta());
  auto e = loss.update({1.0}, meta(2));
  EXPECT_DOUBLE_EQ(loss.value(), 1.5);
  EXPECT_EQ(e.formatted, "epoch 1.5000 - batch 1.0000");
  LearningRateMetric lr;
  EXPECT_EQ(lr.update({}, meta()).formatted, "n/a");
  EXPECT_DOUBLE_EQ(*lr.update({}, meta(1, 1e-4)).value, 1e-4);
  EXPECT_DOUBLE_EQ(lr.value(), 1e-4);
  IterationSpeedMetric speed;
  speed.update({}, meta(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  double v = *speed.update({}, meta(3)).value;  // 2 iterations in >= 20 ms
  EXPECT_GT(v, 0.0);
  EXPECT_LE(v, 100.0);
}

TEST(Metrics, CpuUseAndMemoryReadProcFiles) {
  auto dir = metrics_dir("proc");
  // busy = user + nice + system + irq + softirq + steal = 100 + 0 + 50 + 5 + 5 + 0 = 160; total = 160 + 800 + 40 = 1000
  write(dir / "stat", "cpu  100 0 50 800 40 5 5 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n");
  CpuUse cpu((dir / "stat").string());
  EXPECT_NEAR(*cpu.update({}, meta()).value, 16.0, 1e-9);
  write(dir / "meminfo", "MemTotal:       16777216 kB\nMemFree:  1 kB\nMemAvailable:    4194304 kB\n");
  CpuMemory memory((dir / "meminfo").string());
  auto e = memory.update({}, meta());
  EXPECT_NEAR(*e.value, 12.0, 1e-9);  // (16 − 4) GiB
  EXPECT_EQ(e.formatted, "12.00 / 16.00 GiB");
  CpuMemory missing((dir / "nothing").string());
  EXPECT_EQ(missing.update({}, meta()).formatted, "unavailable");
  EXPECT_FALSE(missing.numeric_value());
}

TEST(Metrics, CpuTemperatureReadsCpuSensorsOrSaysUnavailable) {
  auto dir = metrics_dir("sys");
  write(dir / "class/thermal/thermal_zone0/type", "acpitz\n");
  write(dir / "class/thermal/thermal_zone0/temp", "99000\n");  // not a CPU zone: ignored
  write(dir / "class/thermal/thermal_zone1/type", "x86_pkg_temp\n");
  write(dir / "class/thermal/thermal_zone1/temp", "45000\n");
  write(dir / "class/hwmon/hwmon0/name", "coretemp\n");
  write(dir / "class/hwmon/hwmon0/temp2_input", "51500\n");
  CpuTemperature temperature(dir.string());
  auto e = temperature.update({}, meta());
  EXPECT_DOUBLE_EQ(*e.value, 51.5);
  EXPECT_EQ(e.formatted, "51.5 °C");
  CpuTemperature none((dir / "empty").string());
  auto n = none.update({}, meta());
  EXPECT_EQ(n.formatted, "unavailable");
  EXPECT_FALSE(n.value);
  EXPECT_FALSE(none.numeric_value());
}

TEST(Metrics, ClassificationOutputAdaptsToTheInputs) {
  using B = Cpu;
  ClassificationOutput<B> out{Tensor<B, 1>::from_data(TensorData(std::vector<float>{0.5f}, {1})),
                              Tensor<B, 2>::from_data(TensorData(std::vector<float>{0.0f, 1.0f, 2.0f, 0.0f}, {2, 2})),
                              Tensor<B, 1, Int>::from_data(TensorData(std::vector<int64_t>{1, 1}, {2}))};
  auto acc = Adaptor<ClassificationOutput<B>, AccuracyInput>::adapt(out);
  EXPECT_EQ(acc.num_classes, 2u);
  EXPECT_EQ(acc.targets, (std::vector<int64_t>{1, 1}));
  EXPECT_DOUBLE_EQ((Adaptor<ClassificationOutput<B>, LossInput>::adapt(out).loss), 0.5);
  auto roc = Adaptor<ClassificationOutput<B>, AurocInput>::adapt(out);
  EXPECT_NEAR(roc.scores[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-6);  // softmax([0, 1])[1]
  auto conf = Adaptor<ClassificationOutput<B>, ConfusionStatsInput>::adapt(out);
  EXPECT_EQ(conf.targets, (std::vector<uint8_t>{0, 1, 0, 1}));
}

namespace scorch::train {
namespace {

TEST(CliRenderer, SaysTheRunStartedBeforeTheFirstIterationAndReportsTheFirstAtOnce) {
  std::ostringstream out;
  CliRenderer renderer(out, std::chrono::seconds(10));
  renderer.start(RunInfo{3, 1, {}, nullptr});
  EXPECT_EQ(out.str(), "training 3 epochs: a line after the first iteration, then at most every 10 s\n");
  renderer.update(Split::Train, {}, TrainingProgress{1, 3, 1, 8, 64});
  EXPECT_NE(out.str().find("[train] epoch 1/3 iteration 1 (8/64 items)"), std::string::npos) << out.str();
  std::ostringstream resumed;
  CliRenderer again(resumed);
  again.start(RunInfo{3, 2, {}, nullptr});
  EXPECT_EQ(resumed.str(), "resuming at epoch 2/3\n");
}

}  // namespace
}  // namespace scorch::train
