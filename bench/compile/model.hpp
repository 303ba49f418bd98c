#pragma once
// A newcomer's model: an MLP regression on the Learner (the program issue 64 measured), shared by learner.cpp and
// predictor.cpp. bench/compile/measure.sh compiles them as a user's build would and reports CPU time and memory.
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

namespace newcomer {
using namespace scorch;

struct Sample {
  std::array<float, 4> x;
  float y;
};

template <Backend B> struct Batch { Tensor<B, 2> inputs, targets; };

template <Backend B> struct SampleBatcher final : data::Batcher<B, Sample, Batch<B>> {
  Batch<B> batch(std::vector<Sample> items, const typename B::Device& device) const override {
    std::vector<float> xs, ys;
    for (const auto& item : items) xs.insert(xs.end(), item.x.begin(), item.x.end()), ys.push_back(item.y);
    const size_t n = items.size();
    return {Tensor<B, 2>::from_data(TensorData(xs, {n, 4}), device),
            Tensor<B, 2>::from_data(TensorData(ys, {n, 1}), device)};
  }
};

/// Batches of 64, shuffled each epoch when seed is given.
template <Backend B> auto loader(std::vector<Sample> samples, std::optional<uint64_t> seed = {}) {
  auto builder = data::dataloader_builder(std::make_shared<SampleBatcher<B>>()).batch_size(64);
  if (seed) builder.shuffle(*seed);
  return builder.build(data::share(data::InMemDataset<Sample>(std::move(samples))));
}

template <Backend B> struct Mlp {
  nn::Linear<B> first, second;
  nn::Relu relu;
  SCORCH_MODULE(Mlp, first, second, relu)

  Tensor<B, 2> forward(const Tensor<B, 2>& x) const { return second.forward(relu.forward(first.forward(x))); }
  train::RegressionOutput<B> valid_step(const Batch<B>& batch) const {
    auto predicted = forward(batch.inputs);
    return {nn::MseLoss{}.forward(predicted, batch.targets), predicted, batch.targets};
  }
  train::TrainOutput<train::RegressionOutput<B>> train_step(const Batch<B>& b) const requires AutodiffBackend<B> {
    auto item = valid_step(b);
    return {*this, item.loss.backward(), item};
  }
};

struct MlpConfig {
  size_t hidden = 32;
  SCORCH_CONFIG(MlpConfig, (), (hidden))
  template <Backend B> Mlp<B> init(const typename B::Device& d = {}) const {
    return {nn::LinearConfig(4, hidden).init<B>(d), nn::LinearConfig(hidden, 1).init<B>(d), {}};
  }
};
}  // namespace newcomer
