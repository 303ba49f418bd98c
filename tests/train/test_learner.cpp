// The Learner end to end on a small classifier: artifacts, metrics, gradient accumulation,
// checkpoints, Ctrl-C (SIGINT) during an epoch and resuming from the last checkpoint.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <scorch/data/dataloader.h>
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "train/learner_fixture.h"

using namespace scorch;
using namespace scorch::train;
namespace fs = std::filesystem;
using namespace learner_fixture;

namespace {

/// The Burn Book's custom metric shape: a metric with no input that runs a hook at one iteration.
class HookAt final : public Metric<NoInput> {
 public:
  HookAt(size_t epoch, size_t iteration, std::function<void()> hook)
      : epoch_(epoch), iteration_(iteration), hook_(std::move(hook)) {}
  std::string name() const override { return "Hook"; }
  MetricEntry update(const NoInput&, const MetricMetadata& m) override {
    if (m.epoch == epoch_ && m.iteration == iteration_) hook_();
    return {name(), "-", "", std::nullopt, std::nullopt};
  }
  void clear() override {}

 private:
  size_t epoch_, iteration_;
  std::function<void()> hook_;
};

}  // namespace

TEST(Learner, FitsLogsChecksAndLeavesTheArtifacts) {
  auto dir = temp_dir("fit");
  auto memory = std::make_shared<InMemoryMetricLogger>();
  auto [train, valid] = loaders();
  auto learner = builder(dir, 3, memory).summary().build(fresh_model(), optim::AdamConfig().init(), 0.05);
  auto model = learner.fit(train, valid);
  EXPECT_EQ(learner.report().epochs_completed, 3u);
  EXPECT_FALSE(learner.report().interrupted);
  for (const char* f : {"experiment.log", "train/epoch-1/Accuracy.log", "train/epoch-3/Loss.log",
                        "valid/epoch-3/Accuracy.log", "train/epoch-1/Learning Rate.log", "checkpoint/model-3.mpk",
                        "checkpoint/optim-3.mpk", "checkpoint/scheduler-3.mpk", "plots/Accuracy.svg", "plots/Loss.svg"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  EXPECT_FALSE(fs::exists(dir / "checkpoint/model-1.mpk"));  // the default keeps the last two and the best
  // 160 items in batches of 16: 10 iterations per epoch, each logged.
  EXPECT_EQ(memory->entries(Split::Train, 2).size(), 10u * 3);
  EXPECT_EQ(memory->entries(Split::Valid, 2).size(), 2u * 2);
  auto& store = learner.store();
  EXPECT_LT(*store.epoch_value(Split::Train, "Loss", 3), *store.epoch_value(Split::Train, "Loss", 1));
  EXPECT_GT(*store.epoch_value(Split::Valid, "Accuracy", 3), 60.0);
  EXPECT_DOUBLE_EQ(*store.epoch_value(Split::Train, "Learning Rate", 2), 0.05);
  // The checkpoint holds the trained model.
  auto restored =
      fresh_model().load_file((dir / "checkpoint/model-3").string(), DefaultFileRecorder<>{}, Cpu::Device{});
  EXPECT_TRUE(restored.linear.weight.val().to_data() == model.linear.weight.val().to_data());
}

TEST(Learner, GradientAccumulationStepsOncePerNBatches) {
  auto dir = temp_dir("accumulate");
  auto [train, valid] = loaders();
  auto learner = builder(dir, 1, std::make_shared<InMemoryMetricLogger>())
                     .grads_accumulation(5)
                     .build(fresh_model(), optim::SgdConfig().init(), 0.1);
  learner.fit(train, valid);
  // 10 batches, 5 per step: the scheduler advanced twice.
  auto scheduler = DefaultFileRecorder<>{}.load((dir / "checkpoint/scheduler-1").string());
  EXPECT_EQ(scheduler.at("iteration").as_int(), 2);
}

TEST(Learner, CtrlCDuringAnEpochKeepsTheLastCheckpointAndResumeContinuesTheCurves) {
  auto dir = temp_dir("interrupt");
  auto memory = std::make_shared<InMemoryMetricLogger>();
  {
    auto [train, valid] = loaders();
    auto b = builder(dir, 4, memory);
    b.metric_train(HookAt(3, 4, [] { std::raise(SIGINT); }));  // Ctrl-C in the middle of epoch 3
    auto learner = b.build(fresh_model(), optim::AdamConfig().init(), 0.05);
    learner.fit(train, valid);
    EXPECT_TRUE(learner.report().interrupted);
    EXPECT_EQ(learner.report().epochs_completed, 2u);
    EXPECT_NE(learner.report().reason.find("signal"), std::string::npos);
  }
  EXPECT_EQ(latest_checkpoint(dir.string()), 2u);
  EXPECT_FALSE(fs::exists(dir / "checkpoint/model-3.mpk"));
  EXPECT_FALSE(fs::exists(dir / "plots/Accuracy.svg.tmp"));

  auto [train, valid] = loaders();
  auto resumed = builder(dir, 4, std::make_shared<InMemoryMetricLogger>())
                     .checkpoint(*latest_checkpoint(dir.string()))
                     .build(fresh_model(), optim::AdamConfig().init(), 0.05);
  resumed.fit(train, valid);
  EXPECT_EQ(resumed.report().epochs_completed, 4u);
  const auto& store = resumed.store();
  for (Split split : {Split::Train, Split::Valid}) {
    auto curve = store.epoch_values(split, "Loss");
    ASSERT_EQ(curve.size(), 4u) << split_name(split);
    for (size_t e = 0; e < 4; ++e) EXPECT_EQ(curve[e].first, e + 1);
  }
  // Epochs 1 and 2 come back from the first run's logs unchanged.
  auto first_run = *memory->read_numeric(Split::Train, "Loss", 2);
  double mean = 0;
  for (double v : first_run) mean += v / static_cast<double>(first_run.size());
  EXPECT_NEAR(*store.epoch_value(Split::Train, "Loss", 2), mean, 1e-6);
  // The interrupted epoch's partial log was replaced by the resumed run's full epoch.
  EXPECT_EQ(store.iteration_values(Split::Train, "Loss", 3).size(), 10u);
  EXPECT_TRUE(fs::exists(dir / "checkpoint/model-4.mpk"));
}

TEST(Learner, EarlyStoppingAndInterrupterAndErrors) {
  auto dir = temp_dir("early");
  auto [train, valid] = loaders();
  // Accuracy "Highest" with no improvement for 1 epoch after a warm-up of 1: stops once it plateaus or drops.
  auto learner = builder(dir, 30, std::make_shared<InMemoryMetricLogger>())
                     .early_stopping(MetricEarlyStoppingStrategy("Loss", Aggregate::Mean, Direction::Lowest,
                                                                 Split::Valid, NoImprovementSince{1}))
                     .build(fresh_model(), optim::SgdConfig().init(), 5.0);  // a rate too high to keep improving
  learner.fit(train, valid);
  EXPECT_TRUE(learner.report().stopped_early);
  EXPECT_LT(learner.report().epochs_completed, 30u);

  Interrupter stop;
  stop.stop("asked by the test");
  auto stopped = builder(temp_dir("stopped"), 2, std::make_shared<InMemoryMetricLogger>())
                     .with_interrupter(stop)
                     .build(fresh_model(), optim::SgdConfig().init(), 0.1);
  stopped.fit(train, valid);
  EXPECT_TRUE(stopped.report().interrupted);
  EXPECT_EQ(stopped.report().reason, "asked by the test");
  EXPECT_EQ(stopped.report().epochs_completed, 0u);

  EXPECT_THROW(LearnerBuilder("").build(fresh_model(), optim::SgdConfig().init(), 0.1).fit(train, valid), ValueError);
  EXPECT_THROW(LearnerBuilder(temp_dir("zero").string())
                   .num_epochs(0)
                   .build(fresh_model(), optim::SgdConfig().init(), 0.1)
                   .fit(train, valid),
               ValueError);
  EXPECT_THROW(LearnerBuilder(temp_dir("devices").string()).devices(std::vector<Cpu::Device>{}), ValueError);
  try {  // several devices train one process each: outside scorch-run that is an error naming the launcher
    LearnerBuilder(temp_dir("devices").string())
        .devices(std::vector<Cpu::Device>{{}, {}})
        .build(fresh_model(), optim::SgdConfig().init(), 0.1);
    ADD_FAILURE() << "two devices in one process";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("scorch-run --nproc 2"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(distributed::is_main_process()) << "one process is its own main process";
  try {
    LearnerBuilder(temp_dir("hamming").string())
        .metric_train_numeric(HammingScore{})
        .renderer(std::make_shared<CliRenderer>())
        .build(fresh_model(), optim::SgdConfig().init(), 0.1)
        .fit(train, valid);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("train metric 'Hamming Score' reads scorch::train::HammingScoreInput"),
              std::string::npos)
        << e.what();
  }
}

TEST(Learner, MixedPrecisionTrainsKeepsF32WeightsAndCheckpointsTheScaler) {
  auto [train, valid] = loaders();
  auto bf16_dir = temp_dir("bf16");
  auto bf16 = builder(bf16_dir, 3, std::make_shared<InMemoryMetricLogger>())
                  .mixed_precision(DType::BF16)
                  .build(fresh_model(), optim::AdamConfig().init(), 0.05);
  auto model = bf16.fit(train, valid);
  EXPECT_EQ(model.linear.weight.val().dtype(), DType::F32);  // f32 master weights
  EXPECT_GT(*bf16.store().epoch_value(Split::Valid, "Accuracy", 3), 60.0);
  EXPECT_FALSE(bf16.grad_scaler().enabled());  // bf16 needs no loss scaling
  EXPECT_FALSE(fs::exists(bf16_dir / "checkpoint/grad_scaler-3.mpk"));

  // f16 with loss scaling against f32 under SGD (which, unlike Adam, moves with the gradient's scale): the same
  // weights to f16's rounding, so the gradients were unscaled exactly once.
  auto sgd_run = [&](const fs::path& dir, std::optional<DType> precision) {
    auto b = builder(dir, 2, std::make_shared<InMemoryMetricLogger>());
    if (precision) b.mixed_precision(*precision, optim::GradScalerConfig().with_init_scale(256.0));
    auto learner = b.build(fresh_model(), optim::SgdConfig().init(), 0.5);
    auto trained = learner.fit(train, valid);
    return std::pair{trained.linear.weight.val().inner(), learner.grad_scaler()};
  };
  auto f16_dir = temp_dir("f16");
  auto [f16_weights, f16_scaler] = sgd_run(f16_dir, DType::F16);
  auto [f32_weights, f32_scaler] = sgd_run(temp_dir("f32-sgd"), std::nullopt);
  EXPECT_TRUE(f16_weights.all_close(f32_weights, 2e-2, 2e-3));
  EXPECT_FALSE(f16_weights.to_data() == f32_weights.to_data());  // it did train in f16
  EXPECT_TRUE(f16_scaler.enabled());
  EXPECT_FALSE(f32_scaler.enabled());
  EXPECT_EQ(f16_scaler.skipped_steps(), 0u);
  auto saved = DefaultFileRecorder<>{}.load((f16_dir / "checkpoint/grad_scaler-2").string());
  EXPECT_EQ(saved.get_float("scale"), 256.0);
  EXPECT_EQ(saved.get_int("growth_tracker"), 20);  // 2 epochs of 10 clean steps
  // Resuming restores the scaler's state with the rest.
  auto resumed = builder(f16_dir, 3, std::make_shared<InMemoryMetricLogger>())
                     .mixed_precision(DType::F16, optim::GradScalerConfig().with_init_scale(8.0))
                     .checkpoint(2)
                     .build(fresh_model(), optim::SgdConfig().init(), 0.5);
  resumed.fit(train, valid);
  EXPECT_EQ(resumed.grad_scaler().scale(), 256.0);
  EXPECT_THROW(LearnerBuilder(temp_dir("f32").string()).mixed_precision(DType::F32), ValueError);
  EXPECT_THROW(LearnerBuilder(temp_dir("bad").string())
                   .mixed_precision(DType::F16, optim::GradScalerConfig().with_backoff_factor(2.0)),
               ValueError);
}
