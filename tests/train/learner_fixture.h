#pragma once
// A small Learner setup shared by the train tests: 4-feature items in 3 classes, a linear classifier, loaders and a
// builder with accuracy, loss and learning-rate metrics, file checkpoints and a quiet CLI renderer.
#include <array>
#include <filesystem>
#include <iostream>
#include <scorch/data/dataloader.h>
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

namespace learner_fixture {
using namespace scorch;
using namespace scorch::train;
namespace fs = std::filesystem;
using AD = Autodiff<Cpu>;

struct Item {
  std::array<float, 4> x;
  int64_t label;
};

template <Backend B> struct Batch {
  Tensor<B, 2> x;
  Tensor<B, 1, Int> y;
};

template <Backend B> struct ItemBatcher final : data::Batcher<B, Item, Batch<B>> {
  Batch<B> batch(std::vector<Item> items, const typename B::Device& device) const override {
    std::vector<float> x;
    std::vector<int64_t> y;
    for (const auto& it : items) x.insert(x.end(), it.x.begin(), it.x.end()), y.push_back(it.label);
    return {Tensor<B, 2>::from_data(TensorData(x, {items.size(), size_t{4}}), device),
            Tensor<B, 1, Int>::from_data(TensorData(y, {items.size()}), device)};
  }
};

/// 3 classes: the label is the index of the largest of the first three features.
inline data::InMemDataset<Item> dataset(size_t n, uint64_t seed) {
  std::vector<Item> items;
  uint64_t s = seed;
  auto next = [&] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>((s >> 33) % 1000) / 1000.0f;
  };
  for (size_t i = 0; i < n; ++i) {
    Item it{{next(), next(), next(), next()}, 0};
    it.label = std::max_element(it.x.begin(), it.x.begin() + 3) - it.x.begin();
    items.push_back(it);
  }
  return data::InMemDataset<Item>(items);
}

template <Backend B> struct Classifier {
  nn::Linear<B> linear;
  SCORCH_MODULE(Classifier, linear)
  ClassificationOutput<B> forward_classification(const Batch<B>& b) const {
    auto logits = linear.forward(b.x);
    return {nn::CrossEntropyLossConfig().init<B>().forward(logits, b.y), logits, b.y};
  }
  TrainOutput<ClassificationOutput<B>> train_step(const Batch<B>& b) const requires AutodiffBackend<B> {
    auto out = forward_classification(b);
    return {*this, out.loss.backward(), out};
  }
  ClassificationOutput<B> valid_step(const Batch<B>& b) const { return forward_classification(b); }
};

inline fs::path temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("scorch-learner-" + name);
  fs::remove_all(dir);
  return dir;
}

inline auto loaders() {
  auto train =
      data::dataloader_builder(std::make_shared<ItemBatcher<AD>>()).batch_size(16).shuffle(7).build(dataset(160, 1));
  auto valid = data::dataloader_builder(std::make_shared<ItemBatcher<Cpu>>()).batch_size(32).build(dataset(64, 2));
  return std::pair{train, valid};
}

inline LearnerBuilder builder(const fs::path& dir, size_t epochs, std::shared_ptr<InMemoryMetricLogger> memory) {
  LearnerBuilder b(dir.string());
  b.metric_train_numeric(AccuracyMetric{})
      .metric_valid_numeric(AccuracyMetric{})
      .metric_train_numeric(LossMetric{})
      .metric_valid_numeric(LossMetric{})
      .metric_train_numeric(LearningRateMetric{})
      .with_metric_logger(std::make_shared<FileMetricLogger>(dir.string()))
      .with_metric_logger(memory)
      .renderer(std::make_shared<CliRenderer>(std::cout, std::chrono::hours(1)))
      .with_file_checkpointer(DefaultFileRecorder<>{})
      .num_epochs(epochs);
  return b;
}

inline Classifier<AD> fresh_model() {
  AD::seed(3);
  return {nn::LinearConfig(4, 3).init<AD>()};
}

}  // namespace learner_fixture
