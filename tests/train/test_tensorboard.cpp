// TensorBoard event files: the CRC-32C check value, and a Learner's file read back by an independent reader
// (tests/train/read_tensorboard.py: its own CRC, Python's protobuf) holding every logged value in order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <scorch/data/dataloader.h>
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "train/learner_fixture.h"

using namespace scorch;
using namespace scorch::train;
namespace fs = std::filesystem;

TEST(TensorBoard, Crc32cMatchesTheCastagnoliCheckValue) {
  EXPECT_EQ(tensorboard::crc32c("123456789", 9), 0xe3069283u);
  EXPECT_EQ(tensorboard::crc32c("", 0), 0u);
}

TEST(TensorBoard, HistogramOfNoFiniteValuesIsAnError) {
  std::vector<double> none, non_finite{NAN, INFINITY, -INFINITY};
  EXPECT_THROW(tensorboard::histogram_event(0, 0, "w", none), ValueError);
  EXPECT_THROW(tensorboard::histogram_event(0, 0, "w", non_finite), ValueError);
  std::vector<double> mixed{1.0, NAN, -1e308, 1e308, INFINITY};  // finite ones kept, no overflow in the width
  EXPECT_FALSE(tensorboard::histogram_event(0, 0, "w", mixed).empty());
}

namespace {
// The JSON read_tensorboard.py makes of an event file.
nlohmann::json read_events(const std::string& file, const fs::path& json_file) {
  std::string command = "/usr/bin/python3 " SCORCH_TENSORBOARD_READER " '" + file + "' '" + json_file.string() + "'";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  return nlohmann::json::parse(std::ifstream(json_file));
}
}  // namespace

TEST(TensorBoard, AResumedRunContinuesTheStepsOfTheLastCompleteEpoch) {
  auto dir = learner_fixture::temp_dir("tensorboard-resume");
  MetricEntry entry{"Loss", "", "", 0.5, 0.5};
  std::string first_file, second_file;
  {
    TensorBoardLogger first(dir.string());
    for (int i = 0; i < 3; ++i) first.log(Split::Train, 1, entry);
    first.end_epoch(Split::Train, 1);
    first.log(Split::Train, 2, entry);  // an epoch interrupted before its end
    first_file = first.file();
  }
  TensorBoardLogger second(dir.string());
  second.log(Split::Train, 2, entry);
  second.end_epoch(Split::Train, 2);
  ASSERT_NE(first_file, second.file());
  auto steps = read_events(second.file(), dir / "second.json")["scalars"]["train/Loss"];
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0][0].get<int64_t>(), 3);  // after steps 0, 1, 2 of epoch 1
}

TEST(TensorBoard, LearnerFileReadsBackWithEveryLoggedValue) {
  auto dir = learner_fixture::temp_dir("tensorboard");
  auto memory = std::make_shared<InMemoryMetricLogger>();
  auto board = std::make_shared<TensorBoardLogger>((dir / "tensorboard").string());
  auto [train, valid] = learner_fixture::loaders();
  auto learner = learner_fixture::builder(dir, 2, memory)
                     .with_metric_logger(board)
                     .build(learner_fixture::fresh_model(), optim::AdamConfig().init(), 0.05);
  auto model = learner.fit(train, valid);
  auto weights = model.linear.weight.val().to_data().to_vector<float>();
  std::vector<double> w(weights.begin(), weights.end());
  board->histogram("linear/weight", w, 2);

  auto read = read_events(board->file(), dir / "events.json");
  auto& scalars = read["scalars"];
  for (Split split : {Split::Train, Split::Valid}) {
    std::map<std::string, size_t> seen;
    for (size_t epoch = 1; epoch <= 2; ++epoch)
      for (const auto& entry : memory->entries(split, epoch)) {
        std::string tag = std::string(split_name(split)) + "/" + entry.name;
        size_t k = seen[tag]++;
        ASSERT_LT(k, scalars[tag].size()) << tag;
        EXPECT_EQ(scalars[tag][k][0].get<int64_t>(), static_cast<int64_t>(k)) << tag;
        EXPECT_EQ(scalars[tag][k][1].get<float>(), static_cast<float>(*entry.value)) << tag << " step " << k;
      }
    for (const auto& [tag, count] : seen) {
      EXPECT_EQ(scalars[tag].size(), count) << tag;
      ASSERT_EQ(scalars[tag + "/epoch"].size(), 2u) << tag;
      EXPECT_EQ(scalars[tag + "/epoch"][1][0].get<int64_t>(), 2);
    }
  }
  auto last = memory->entries(Split::Valid, 2).back();  // an epoch value is the metric's last running value
  EXPECT_EQ(scalars["valid/" + last.name + "/epoch"][1][1].get<float>(), static_cast<float>(*last.running));
  auto histogram = read["histograms"]["linear/weight"][0];  // [step, num, sum, bucket counts...]
  EXPECT_EQ(histogram[0].get<int64_t>(), 2);
  EXPECT_EQ(histogram[1].get<double>(), static_cast<double>(w.size()));
  double counted = 0;
  for (size_t b = 3; b < histogram.size(); ++b) counted += histogram[b].get<double>();
  EXPECT_EQ(counted, static_cast<double>(w.size()));
}
