#pragma once
// The forecaster: the value lifted to d features, two stacked LSTMs with layer norm and dropout between them,
// and a linear head on the last step's hidden state, with the Learner's steps.
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "series.h"

namespace forecast {

template <Backend B> struct Forecaster {
  nn::Linear<B> lift, head;
  nn::Lstm<B> lower, upper;
  nn::LayerNorm<B> lower_norm, upper_norm;
  nn::Dropout dropout;
  SCORCH_MODULE(Forecaster, lift, head, lower, upper, lower_norm, upper_norm, dropout)

  /// inputs [n, steps, 1] → the next value [n, 1].
  Tensor<B, 2> forward(const Tensor<B, 3>& inputs) const {
    auto [lower_states, lower_final] = lower.forward(lift.forward(inputs));
    auto between = dropout.forward(lower_norm.forward(lower_states));
    auto [upper_states, upper_final] = upper.forward(between);
    return head.forward(upper_norm.forward(upper_final.hidden));
  }

  train::RegressionOutput<B> forward_regression(const WindowBatch<B>& batch) const {
    auto predicted = forward(batch.inputs);
    return {nn::MseLoss{}.forward(predicted, batch.targets), predicted, batch.targets};
  }
  train::TrainOutput<train::RegressionOutput<B>> train_step(const WindowBatch<B>& batch) const requires
      AutodiffBackend<B> {
    auto item = forward_regression(batch);
    return {*this, item.loss.backward(), item};
  }
  train::RegressionOutput<B> valid_step(const WindowBatch<B>& batch) const { return forward_regression(batch); }
};

struct ForecasterConfig {
  size_t d_hidden = 32;
  double dropout = 0.1;
  SCORCH_CONFIG(ForecasterConfig, (), (d_hidden, dropout))

  template <Backend B> Forecaster<B> init(const typename B::Device& device = {}) const {
    return {nn::LinearConfig(1, d_hidden).init<B>(device),
            nn::LinearConfig(d_hidden, 1).init<B>(device),
            nn::LstmConfig(d_hidden, d_hidden).init<B>(device),
            nn::LstmConfig(d_hidden, d_hidden).init<B>(device),
            nn::LayerNormConfig(d_hidden).init<B>(device),
            nn::LayerNormConfig(d_hidden).init<B>(device),
            nn::DropoutConfig(dropout).init()};
  }
};

}  // namespace forecast
