#pragma once
// The guide's training (the book's training.rs): the model's steps, the experiment's config and
// train(), which fits the model with the Learner and saves it.
#include <filesystem>
#include <scorch/data/transforms.h>
#include <scorch/train.hpp>

#include "data.hpp"
#include "guide.hpp"
#include "model.hpp"

namespace guide {

template <Backend B>
train::ClassificationOutput<B> Model<B>::forward_classification(const Tensor<B, 3>& images,
                                                                const Tensor<B, 1, Int>& targets) const {
  auto output = forward(images);
  auto loss = nn::CrossEntropyLossConfig().init<B>().forward(output, targets);
  return {loss, output, targets};
}

template <Backend B> train::TrainOutput<train::ClassificationOutput<B>> Model<B>::train_step(
    const MnistBatch<B>& batch) const requires AutodiffBackend<B> {
  // clang 14's explicit instantiation of Model<Cpu> instantiates this member despite its constraint.
  if constexpr (AutodiffBackend<B>) {
    auto item = forward_classification(batch.images, batch.targets);
    return {*this, item.loss.backward(), item};
  } else {
    throw Error("Model::train_step", "needs an autodiff backend");
  }
}

template <Backend B> train::ClassificationOutput<B> Model<B>::valid_step(const MnistBatch<B>& batch) const {
  return forward_classification(batch.images, batch.targets);
}

/// The experiment's settings (the book's defaults), saved next to the model.
struct TrainingConfig {
  ModelConfig model;
  optim::AdamConfig optimizer;
  size_t num_epochs = 10;
  size_t batch_size = 64;
  size_t num_workers = 4;
  uint64_t seed = 42;
  double learning_rate = 1.0e-4;
  SCORCH_CONFIG(TrainingConfig, (model, optimizer), (num_epochs, batch_size, num_workers, seed, learning_rate))
};

/// (train, test) sets of the source.
std::pair<data::DatasetPtr<data::MnistItem>, data::DatasetPtr<data::MnistItem>> datasets(DataSource source);

/// Trains the guide's model and saves it as artifact_dir/model; returns the report of the fit.
template <AutodiffBackend B>
train::FitReport run_training(const std::string& artifact_dir, const TrainingConfig& config,
                              const typename B::Device& device, const TrainOptions& options) {
  // Under scorch-run every rank trains; rank 0 alone writes (the Learner does the same for its files).
  bool main_process = distributed::is_main_process();
  if (main_process) std::filesystem::create_directories(artifact_dir), config.save(artifact_dir + "/config.json");
  B::seed(config.seed);
  auto [train_set, test_set] = datasets(options.source);
  using Inner = typename B::InnerBackend;
  auto loader_train = data::dataloader_builder(std::make_shared<MnistBatcher<B>>())
                          .batch_size(config.batch_size)
                          .shuffle(config.seed)
                          .num_workers(config.num_workers)
                          .build(std::move(train_set));
  auto loader_test = data::dataloader_builder(std::make_shared<MnistBatcher<Inner>>())
                         .batch_size(config.batch_size)
                         .shuffle(config.seed)
                         .num_workers(config.num_workers)
                         .build(std::move(test_set));
  if (main_process && !options.resume) std::filesystem::remove_all(artifact_dir + "/tensorboard");  // curves from 0
  auto builder = train::LearnerBuilder(artifact_dir);
  builder.metric_train_numeric(train::AccuracyMetric{})
      .metric_valid_numeric(train::AccuracyMetric{})
      .metric_train_numeric(train::LossMetric{})
      .metric_valid_numeric(train::LossMetric{})
      .metric_train_numeric(train::LearningRateMetric{})
      .with_metric_logger(std::make_shared<train::FileMetricLogger>(artifact_dir))
      .with_metric_logger(std::make_shared<train::TensorBoardLogger>(artifact_dir + "/tensorboard"))
      .with_file_checkpointer(CompactRecorder{})
      .devices(std::vector{device})
      .num_epochs(config.num_epochs)
      .summary();
  if (options.renderer) builder.renderer(options.renderer);
  if (options.resume)
    if (auto epoch = train::latest_checkpoint(artifact_dir)) builder.checkpoint(*epoch);
  auto learner = builder.build(config.model.init<B>(device), config.optimizer.init(), config.learning_rate);
  auto model_trained = learner.fit(loader_train, loader_test);
  // Stopped before its first epoch ended, the run learned nothing: a model trained earlier stays in place.
  if (main_process && learner.report().epochs_completed > 0)
    model_trained.save_file(artifact_dir + "/model", CompactRecorder{});
  return learner.report();
}

// Compiled once each, in training.cpp (Autodiff<Cpu>) and inference.cpp (Cpu); the forward pass in model.cpp.
extern template struct Model<Autodiff<Cpu>>;
extern template struct Model<Cpu>;

}  // namespace guide
