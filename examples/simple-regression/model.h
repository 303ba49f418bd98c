#pragma once
// The regression model: a small MLP from the 10 measurements to the progression, with the Learner's steps.
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "dataset.h"

namespace regression {

template <Backend B> struct RegressionModel {
  nn::Linear<B> hidden, output;
  nn::Relu activation;
  SCORCH_MODULE(RegressionModel, hidden, output, activation)

  /// features [n, 10] → predictions [n, 1] (in hundreds).
  Tensor<B, 2> forward(const Tensor<B, 2>& features) const {
    return output.forward(activation.forward(hidden.forward(features)));
  }

  train::RegressionOutput<B> forward_regression(const DiabetesBatch<B>& batch) const {
    auto predicted = forward(batch.features);
    return {nn::MseLoss{}.forward(predicted, batch.targets), predicted, batch.targets};
  }
  train::TrainOutput<train::RegressionOutput<B>> train_step(const DiabetesBatch<B>& batch) const requires
      AutodiffBackend<B> {
    auto item = forward_regression(batch);
    return {*this, item.loss.backward(), item};
  }
  train::RegressionOutput<B> valid_step(const DiabetesBatch<B>& batch) const { return forward_regression(batch); }
};

struct RegressionModelConfig {
  size_t hidden_size = 64;
  SCORCH_CONFIG(RegressionModelConfig, (), (hidden_size))

  template <Backend B> RegressionModel<B> init(const typename B::Device& device = {}) const {
    return {
        nn::LinearConfig(kFeatures, hidden_size).init<B>(device), nn::LinearConfig(hidden_size, 1).init<B>(device), {}};
  }
};

}  // namespace regression
