#pragma once
// The guide's inference (the book's inference.rs): load the config and the trained weights, then
// classify items.
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

}  // namespace guide
