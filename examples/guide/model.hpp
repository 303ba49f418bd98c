#pragma once
// The Burn Book guide's model: two convolutions, adaptive pooling, dropout and two linear
// layers, classifying 28×28 images (MNIST / Fashion-MNIST) into num_classes.
#include <scorch/scorch.hpp>
#include <scorch/train/outputs.h>

#include "data.hpp"

namespace guide {

using namespace scorch;

template <Backend B> struct Model {
  nn::Conv2d<B> conv1, conv2;
  nn::AdaptiveAvgPool2d pool;
  nn::Dropout dropout;
  nn::Linear<B> linear1, linear2;
  nn::Relu activation;
  SCORCH_MODULE(Model, conv1, conv2, pool, dropout, linear1, linear2, activation)

  /// images [batch, height, width] → logits [batch, num_classes]. Defined in model_forward.hpp and compiled in
  /// model.cpp / model_dyn.cpp, so that editing the forward pass rebuilds those two small files only.
  Tensor<B, 2> forward(const Tensor<B, 3>& images) const;

  // The learner's steps (defined in training.hpp, as in the book's training.rs).
  /// Logits, cross-entropy loss and targets for the metrics.
  train::ClassificationOutput<B> forward_classification(const Tensor<B, 3>& images,
                                                        const Tensor<B, 1, Int>& targets) const;
  /// One training step: the output and the gradients of the loss.
  train::TrainOutput<train::ClassificationOutput<B>> train_step(const MnistBatch<B>& batch) const requires
      AutodiffBackend<B>;
  /// One validation step.
  train::ClassificationOutput<B> valid_step(const MnistBatch<B>& batch) const;
};

/// The model's settings (the book's defaults: dropout 0.5).
struct ModelConfig {
  size_t num_classes;
  size_t hidden_size;
  double dropout = 0.5;
  SCORCH_CONFIG(ModelConfig, (num_classes, hidden_size), (dropout))

  template <Backend B> Model<B> init(const typename B::Device& device = {}) const {
    return {nn::Conv2dConfig({1, 8}, {3, 3}).init<B>(device),
            nn::Conv2dConfig({8, 16}, {3, 3}).init<B>(device),
            nn::AdaptiveAvgPool2dConfig({8, 8}).init(),
            nn::DropoutConfig(dropout).init(),
            nn::LinearConfig(16 * 8 * 8, hidden_size).init<B>(device),
            nn::LinearConfig(hidden_size, num_classes).init<B>(device),
            {}};
  }
  /// The model with recorded weights (the book's init_with): no random initialization first.
  template <Backend B> Model<B> init_with(const Record& record, const typename B::Device& device = {}) const {
    return {nn::Conv2dConfig({1, 8}, {3, 3}).init_with<B>(record.at("conv1"), device),
            nn::Conv2dConfig({8, 16}, {3, 3}).init_with<B>(record.at("conv2"), device),
            nn::AdaptiveAvgPool2dConfig({8, 8}).init(),
            nn::DropoutConfig(dropout).init(),
            nn::LinearConfig(16 * 8 * 8, hidden_size).init_with<B>(record.at("linear1"), device),
            nn::LinearConfig(hidden_size, num_classes).init_with<B>(record.at("linear2"), device),
            {}};
  }
};

}  // namespace guide
