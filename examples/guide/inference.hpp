#pragma once
// The guide's inference (the book's inference.rs): load the config and the trained weights, then
// classify items.
#include <algorithm>
#include <scorch/scorch.hpp>

#include "data.hpp"
#include "model.hpp"
#include "training.hpp"

namespace guide {

/// The trained model read from artifact_dir (config.json and the CompactRecorder weights).
template <Backend B> Model<B> load_model(const std::string& artifact_dir, const typename B::Device& device = {}) {
  auto config = TrainingConfig::load(artifact_dir + "/config.json").model;
  auto record = CompactRecorder{}.load(artifact_dir + "/model");
  return config.init_with<B>(record, device);
}

/// The predicted class of each item.
template <Backend B> std::vector<int64_t> infer(const Model<B>& model, std::vector<data::MnistItem> items,
                                                const typename B::Device& device = {}) {
  auto batch = MnistBatcher<B>{}.batch(std::move(items), device);
  auto predicted = model.forward(batch.images).argmax(1).template reshape<1>({-1});
  return predicted.to_data().convert(DType::I64).template to_vector<int64_t>();
}

/// model over the whole test set (in batches of 1,000): its accuracy and the first `show` predictions.
template <class M> Evaluation evaluate_model(const M& model, const data::DatasetPtr<data::MnistItem>& test,
                                             size_t show) {
  Evaluation out;
  size_t correct = 0, total = test->len();
  for (size_t start = 0; start < total; start += 1000) {
    std::vector<data::MnistItem> items;
    for (size_t i = start; i < std::min(total, start + 1000); ++i) items.push_back(*test->get(i));
    auto predicted = infer(model, items);
    for (size_t k = 0; k < items.size(); ++k) {
      correct += predicted[k] == items[k].label;
      if (out.first.size() < show) out.first.push_back({predicted[k], items[k].label});
    }
  }
  out.accuracy = total ? 100.0 * static_cast<double>(correct) / static_cast<double>(total) : 0.0;
  return out;
}

/// The saved model on B over the whole test set.
template <Backend B> Evaluation evaluate_on(const std::string& artifact_dir, DataSource source, size_t show) {
  return evaluate_model(load_model<B>(artifact_dir), datasets(source).second, show);
}

// Training and inference on the Dyn stack the choice names (backend_dyn.cpp: Autodiff<Dyn> and Dyn, compiled once).
train::FitReport train_on_dyn(const std::string& artifact_dir, const TrainingConfig& config,
                              const TrainOptions& options);
Evaluation evaluate_on_dyn(const std::string& artifact_dir, DataSource source, size_t show,
                           const BackendChoice& backend);

}  // namespace guide
