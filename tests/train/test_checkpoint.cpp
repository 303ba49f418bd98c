// Checkpointing strategies, the file checkpointer, early stopping, loggers, the store, plots
// and the summary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "support/temp_dir.h"

using namespace scorch;
using namespace scorch::train;
namespace fs = std::filesystem;
using Action = CheckpointingAction;

namespace {

fs::path checkpoint_dir(const std::string& name) { return scorch::testing::fresh_temp_dir("train-" + name); }

/// A store whose valid loss per epoch is losses[epoch - 1].
MetricsStore losses(const std::vector<double>& values) {
  MetricsStore store;
  for (size_t e = 0; e < values.size(); ++e) store.add(Split::Valid, "Loss", e + 1, values[e]);
  return store;
}

}  // namespace

TEST(Checkpointing, KeepLastNDeletesTheEpochNBack) {
  KeepLastNCheckpoints keep(2);
  MetricsStore store;
  EXPECT_EQ(keep.checkpointing(1, store), (std::vector<Action>{{Action::Save, 1}}));
  EXPECT_EQ(keep.checkpointing(2, store), (std::vector<Action>{{Action::Save, 2}}));
  EXPECT_EQ(keep.checkpointing(3, store), (std::vector<Action>{{Action::Save, 3}, {Action::Delete, 1}}));
  EXPECT_THROW(KeepLastNCheckpoints(0), ValueError);
}

TEST(Checkpointing, MetricStrategyKeepsOnlyTheBest) {
  MetricCheckpointingStrategy best("Loss", Aggregate::Mean, Direction::Lowest, Split::Valid);
  auto store = losses({0.9, 0.5, 0.7, 0.4});
  EXPECT_EQ(best.checkpointing(1, store), (std::vector<Action>{{Action::Save, 1}}));
  EXPECT_EQ(best.checkpointing(2, store), (std::vector<Action>{{Action::Save, 2}, {Action::Delete, 1}}));
  EXPECT_EQ(best.checkpointing(3, store), (std::vector<Action>{{Action::Delete, 3}}));
  EXPECT_EQ(best.checkpointing(4, store), (std::vector<Action>{{Action::Save, 4}, {Action::Delete, 2}}));
  MetricCheckpointingStrategy highest("Accuracy", Aggregate::Mean, Direction::Highest, Split::Valid);
  MetricsStore acc;
  acc.add(Split::Valid, "Accuracy", 1, 80);
  acc.add(Split::Valid, "Accuracy", 2, 70);
  highest.checkpointing(1, acc);
  EXPECT_EQ(highest.checkpointing(2, acc), (std::vector<Action>{{Action::Delete, 2}}));
}

TEST(Checkpointing, ComposedDeletesOnlyWhenEveryStrategyAgrees) {
  // The default: last two plus the best valid loss. Losses: best at epoch 2.
  auto strategy = default_checkpointing_strategy();
  auto store = losses({0.9, 0.5, 0.7, 0.8, 0.6});
  EXPECT_EQ(strategy->checkpointing(1, store), (std::vector<Action>{{Action::Save, 1}}));
  EXPECT_EQ(strategy->checkpointing(2, store),
            (std::vector<Action>{{Action::Save, 2}}));  // metric drops 1, keep-last still holds it
  EXPECT_EQ(strategy->checkpointing(3, store), (std::vector<Action>{{Action::Save, 3}, {Action::Delete, 1}}));
  EXPECT_EQ(strategy->checkpointing(4, store), (std::vector<Action>{{Action::Save, 4}}));  // 2 is the best: kept
  EXPECT_EQ(strategy->checkpointing(5, store), (std::vector<Action>{{Action::Save, 5}, {Action::Delete, 3}}));
}

TEST(Checkpointing, FileCheckpointerWritesReadsAndRemoves) {
  auto dir = checkpoint_dir("checkpointer");
  FileCheckpointer c((dir / "checkpoint").string(), "model", AnyRecorder::from(CompactRecorder{}));
  Record r = Record::map();
  r.set("step", int64_t{7});
  EXPECT_EQ(c.save(3, r), (dir / "checkpoint" / "model-3.mpk.gz").string());
  EXPECT_TRUE(c.exists(3));
  EXPECT_EQ(c.restore(3).at("step").as_int(), 7);
  c.remove(3);
  EXPECT_FALSE(c.exists(3));
  try {
    c.restore(3);
    FAIL();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("model-3.mpk.gz does not exist"), std::string::npos) << e.what();
  }
}

TEST(Checkpointing, LatestCheckpointNeedsAllThreeFiles) {
  auto dir = checkpoint_dir("latest");
  EXPECT_FALSE(latest_checkpoint(dir.string()));
  fs::create_directories(dir / "checkpoint");
  for (const char* f : {"model-1.mpk", "optim-1.mpk", "scheduler-1.mpk", "model-2.mpk", "optim-2.mpk",
                        "scheduler-2.mpk", "optim-3.mpk", "scheduler-3.mpk", "model-4.mpk.tmp"})
    std::ofstream(dir / "checkpoint" / f) << "x";
  EXPECT_EQ(latest_checkpoint(dir.string()), 2u);  // 3 has no model file, 4 is a temporary
}

TEST(EarlyStopping, StopsAfterNEpochsWithoutImprovement) {
  MetricEarlyStoppingStrategy stop("Loss", Aggregate::Mean, Direction::Lowest, Split::Valid, NoImprovementSince{2});
  auto store = losses({0.9, 0.5, 0.6, 0.55, 0.4});
  EXPECT_FALSE(stop.should_stop(1, store));
  EXPECT_FALSE(stop.should_stop(2, store));
  EXPECT_FALSE(stop.should_stop(3, store));
  EXPECT_TRUE(stop.should_stop(4, store));  // best is still epoch 2, two epochs ago
  auto warm =
      MetricEarlyStoppingStrategy("Loss", Aggregate::Mean, Direction::Lowest, Split::Valid, NoImprovementSince{1})
          .with_warmup_epochs(3);
  auto rising = losses({0.1, 0.2, 0.3, 0.4});
  EXPECT_FALSE(warm.should_stop(1, rising));
  EXPECT_FALSE(warm.should_stop(2, rising));
  EXPECT_FALSE(warm.should_stop(3, rising));
  EXPECT_TRUE(warm.should_stop(4, rising));
}

TEST(Store, EpochValueIsTheMeanOfIterations) {
  MetricsStore store;
  store.add(Split::Train, "Loss", 1, 1.0);
  store.add(Split::Train, "Loss", 1, 3.0);
  store.add(Split::Train, "Loss", 2, 1.0);
  EXPECT_DOUBLE_EQ(*store.epoch_value(Split::Train, "Loss", 1), 2.0);
  EXPECT_FALSE(store.epoch_value(Split::Valid, "Loss", 1));
  EXPECT_EQ(store.epoch_values(Split::Train, "Loss"), (std::vector<std::pair<size_t, double>>{{1, 2.0}, {2, 1.0}}));
  store.drop_from(2);
  EXPECT_EQ(store.all_iteration_values(Split::Train, "Loss"), (std::vector<double>{1.0, 3.0}));
}

TEST(Loggers, FileLoggerWritesTheBookLayoutAndReadsItBack) {
  auto dir = checkpoint_dir("logger");
  FileMetricLogger logger(dir.string());
  logger.log(Split::Train, 1, {"Accuracy", "", "75", 75.0, 75.0});
  logger.log(Split::Train, 1, {"Accuracy", "", "25", 25.0, 50.0});
  logger.log(Split::Valid, 1, {"Learning Rate", "", "0.001", 0.001, 0.001});
  logger.end_epoch(Split::Train, 1);
  logger.end_epoch(Split::Valid, 1);
  EXPECT_TRUE(fs::exists(dir / "train/epoch-1/Accuracy.log"));
  EXPECT_TRUE(fs::exists(dir / "valid/epoch-1/Learning Rate.log"));
  EXPECT_EQ(*logger.read_numeric(Split::Train, "Accuracy", 1), (std::vector<double>{75.0, 25.0}));
  EXPECT_FALSE(logger.read_numeric(Split::Train, "Accuracy", 2));
  // A new run replaces what an interrupted one left in the epoch.
  FileMetricLogger again(dir.string());
  again.log(Split::Train, 1, {"Loss", "", "0.5", 0.5, 0.5});
  again.end_epoch(Split::Train, 1);
  EXPECT_FALSE(fs::exists(dir / "train/epoch-1/Accuracy.log"));
  EXPECT_EQ(*again.read_numeric(Split::Train, "Loss", 1), (std::vector<double>{0.5}));
}

TEST(Reports, PlotsAndSummary) {
  auto dir = checkpoint_dir("plots");
  MetricsStore store;
  for (size_t e = 1; e <= 3; ++e) {
    store.add(Split::Train, "Accuracy", e, 60.0 + 10.0 * static_cast<double>(e));
    store.add(Split::Valid, "Accuracy", e, 65.0 + 5.0 * static_cast<double>(e));
  }
  auto files = write_metric_plots(store, (dir / "plots").string());
  ASSERT_EQ(files.size(), 1u);
  std::ifstream in(files[0]);
  std::string svg((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find(">Accuracy</text>"), std::string::npos);
  EXPECT_NE(svg.find(">train</text>"), std::string::npos);
  EXPECT_NE(svg.find(">valid</text>"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 10, true);
  auto summary = learner_summary(store, 3, "Model (10 parameters)");
  EXPECT_NE(summary.find("| Train | Accuracy               | 70         | 1     | 90         | 3     |"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("| Valid | Accuracy               | 70         | 1     | 80         | 3     |"),
            std::string::npos)
      << summary;
}
