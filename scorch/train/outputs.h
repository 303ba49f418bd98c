#pragma once
// What training and validation steps return. TrainOutput carries the gradients and the item the
// metrics read; ClassificationOutput, MultiLabelClassificationOutput and RegressionOutput are the
// provided items, each adapting to the metric inputs listed in its `Adapts`.
#include <tuple>
#include <vector>

#include "scorch/optim/gradients_params.h"
#include "scorch/tensor/activation.h"
#include "scorch/tensor/tensor.h"
#include "scorch/train/metrics_classification.h"
#include "scorch/train/metrics_training.h"

namespace scorch::train {

/// A training step's result: the model's gradients as GradientsParams, and the metrics' item.
template <class Item> struct TrainOutput {
  optim::GradientsParams grads;
  Item item;
  /// Converts the autodiff gradients of the model's parameters (the book's TrainOutput::new).
  template <Module M> TrainOutput(const M& model, typename BackendOf<M>::Gradients gradients, Item item)
      : grads(optim::GradientsParams::from_grads(std::move(gradients), model)), item(std::move(item)) {}
  TrainOutput(optim::GradientsParams grads, Item item) : grads(std::move(grads)), item(std::move(item)) {}
};

namespace detail {
/// A float tensor's values as f32 on the host.
template <class B, size_t D> std::vector<float> host_floats(const Tensor<B, D>& t) {
  return t.to_data().convert(DType::F32).template to_vector<float>();
}
/// An int tensor's values as i64 on the host.
template <class B, size_t D> std::vector<int64_t> host_ints(const Tensor<B, D, Int>& t) {
  return t.to_data().convert(DType::I64).template to_vector<int64_t>();
}
/// The mean of a loss tensor as a double.
template <class B> double host_mean(const Tensor<B, 1>& loss) { return loss.mean().into_scalar().to_double(); }
}  // namespace detail

/// Single-label classification: loss [1], logits [batch, classes], target classes [batch].
template <class B> struct ClassificationOutput {
  Tensor<B, 1> loss;
  Tensor<B, 2> output;
  Tensor<B, 1, Int> targets;
  using Adapts = std::tuple<AccuracyInput, LossInput, ConfusionStatsInput, AurocInput>;
};

/// Multi-label classification: loss [1], logits [batch, labels], 0/1 targets [batch, labels].
template <class B> struct MultiLabelClassificationOutput {
  Tensor<B, 1> loss;
  Tensor<B, 2> output;
  Tensor<B, 2, Int> targets;
  using Adapts = std::tuple<HammingScoreInput, LossInput, ConfusionStatsInput>;
};

/// Regression: loss [1], predictions and targets [batch, outputs].
template <class B> struct RegressionOutput {
  Tensor<B, 1> loss;
  Tensor<B, 2> output;
  Tensor<B, 2> targets;
  using Adapts = std::tuple<LossInput>;
};

template <class B> struct Adaptor<ClassificationOutput<B>, AccuracyInput> {
  static AccuracyInput adapt(const ClassificationOutput<B>& o) {
    return {detail::host_floats(o.output), o.output.dims()[1], detail::host_ints(o.targets)};
  }
};
template <class B> struct Adaptor<ClassificationOutput<B>, LossInput> {
  static LossInput adapt(const ClassificationOutput<B>& o) { return {detail::host_mean(o.loss)}; }
};
/// Softmax probabilities against one-hot targets.
template <class B> struct Adaptor<ClassificationOutput<B>, ConfusionStatsInput> {
  static ConfusionStatsInput adapt(const ClassificationOutput<B>& o) {
    size_t classes = o.output.dims()[1];
    auto targets = detail::host_ints(o.targets);
    std::vector<uint8_t> one_hot(targets.size() * classes, 0);
    for (size_t r = 0; r < targets.size(); ++r)
      if (targets[r] >= 0 && static_cast<size_t>(targets[r]) < classes)
        one_hot[r * classes + static_cast<size_t>(targets[r])] = 1;
    return {detail::host_floats(activation::softmax(o.output, 1)), std::move(one_hot), classes};
  }
};
/// Binary classification: the softmax probability of class 1 (two logits per row).
template <class B> struct Adaptor<ClassificationOutput<B>, AurocInput> {
  static AurocInput adapt(const ClassificationOutput<B>& o) {
    if (o.output.dims()[1] != 2)
      throw ShapeError("AurocMetric", "needs two classes, the output is " + o.output.shape().to_string());
    auto p = detail::host_floats(activation::softmax(o.output, 1));
    std::vector<float> scores(p.size() / 2);
    for (size_t r = 0; r < scores.size(); ++r) scores[r] = p[2 * r + 1];
    return {std::move(scores), detail::host_ints(o.targets)};
  }
};

template <class B> struct Adaptor<MultiLabelClassificationOutput<B>, HammingScoreInput> {
  static HammingScoreInput adapt(const MultiLabelClassificationOutput<B>& o) {
    auto t = detail::host_ints(o.targets);
    return {detail::host_floats(activation::sigmoid(o.output)), std::vector<uint8_t>(t.begin(), t.end()),
            o.output.dims()[1]};
  }
};
template <class B> struct Adaptor<MultiLabelClassificationOutput<B>, LossInput> {
  static LossInput adapt(const MultiLabelClassificationOutput<B>& o) { return {detail::host_mean(o.loss)}; }
};
template <class B> struct Adaptor<MultiLabelClassificationOutput<B>, ConfusionStatsInput> {
  static ConfusionStatsInput adapt(const MultiLabelClassificationOutput<B>& o) {
    auto t = detail::host_ints(o.targets);
    return {detail::host_floats(activation::sigmoid(o.output)), std::vector<uint8_t>(t.begin(), t.end()),
            o.output.dims()[1]};
  }
};

template <class B> struct Adaptor<RegressionOutput<B>, LossInput> {
  static LossInput adapt(const RegressionOutput<B>& o) { return {detail::host_mean(o.loss)}; }
};

}  // namespace scorch::train
