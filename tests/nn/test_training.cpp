// End-to-end training on synthetic data: the guide's CNN and a small transformer classifier
// train with Adam and their loss falls. Losses are printed for the record.
#include <gtest/gtest.h>

#include <iostream>

#include <scorch/scorch.hpp>

#include "guide/model_forward.hpp"

namespace scorch::nntest {
namespace {

using AD = Autodiff<Cpu>;

/// Images of class c: a bright 7×7 block at a class-dependent place, plus noise.
std::pair<Tensor<AD, 3>, Tensor<AD, 1, Int>> image_batch(size_t batch, size_t step) {
  std::vector<float> pixels(batch * 28 * 28);
  std::vector<int64_t> labels(batch);
  for (size_t b = 0; b < batch; ++b) {
    size_t c = (b * 7 + step * 3) % 10;
    labels[b] = static_cast<int64_t>(c);
    size_t row = (c / 5) * 14 + 3, col = (c % 5) * 5 + 1;
    for (size_t i = 0; i < 28 * 28; ++i)
      pixels[b * 784 + i] = static_cast<float>(((i * 31 + b * 17 + step * 5) % 23) / 23.0 * 0.3);
    for (size_t r = row; r < row + 7; ++r)
      for (size_t k = col; k < col + 5; ++k) pixels[b * 784 + r * 28 + k] += 1.0f;
  }
  return {Tensor<AD, 3>::from_data(TensorData(pixels, {batch, 28, 28})),
          Tensor<AD, 1, Int>::from_data(TensorData(labels, {batch}))};
}

double mean(const std::vector<double>& v, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / static_cast<double>(to - from);
}

TEST(Training, GuideCnnLossFalls) {
  AD::seed(1);
  auto model = guide::ModelConfig(10, 64).with_dropout(0.1).init<AD>();
  auto optim = optim::AdamConfig().init();
  auto loss_fn = nn::CrossEntropyLossConfig().init<AD>();
  std::vector<double> losses;
  for (size_t step = 0; step < 40; ++step) {
    auto [x, y] = image_batch(32, step);
    auto loss = loss_fn.forward(model.forward(x), y);
    losses.push_back(loss.into_scalar().to_double());
    model = optim.step(2e-3, model, optim::GradientsParams::from_grads(loss.backward(), model));
  }
  double first = mean(losses, 0, 5), last = mean(losses, 35, 40);
  std::cout << "guide CNN: mean loss of steps 0-4 " << first << ", of steps 35-39 " << last << "\n";
  EXPECT_LT(last, 0.5 * first);
  auto [x, y] = image_batch(64, 1000);
  auto predicted = model.valid().forward(x.inner()).argmax(1).reshape<1>({-1});
  double accuracy = predicted.equal(y.inner()).int_().float_().mean().into_scalar().to_double();
  std::cout << "guide CNN: held-out accuracy " << accuracy << "\n";
  EXPECT_GT(accuracy, 0.8);
}

/// Embedding + positional encoding + transformer encoder + mean pooling + linear head.
template <class B> struct TextClassifier {
  nn::Embedding<B> embedding;
  nn::PositionalEncoding<B> positions;
  nn::TransformerEncoder<B> encoder;
  nn::Linear<B> head;
  SCORCH_MODULE(TextClassifier, embedding, positions, encoder, head)
  Tensor<B, 2> forward(const Tensor<B, 2, Int>& tokens, const Tensor<B, 2, Bool>& pad) const {
    auto x = positions.forward(embedding.forward(tokens));
    auto h = encoder.forward(nn::TransformerEncoderInput<B>(x).with_mask_pad(pad));
    return head.forward(h.mean_dim(1).template squeeze_dim<2>(1));
  }
};

/// Sequences of 3–6 tokens from [1, 8); class 1 when the first token is below 4. Padding token 0.
std::tuple<Tensor<AD, 2, Int>, Tensor<AD, 2, Bool>, Tensor<AD, 1, Int>> token_batch(size_t batch, size_t step) {
  std::vector<std::vector<int64_t>> seqs(batch);
  std::vector<int64_t> labels(batch);
  for (size_t b = 0; b < batch; ++b) {
    size_t len = 3 + (b + step) % 4;
    for (size_t i = 0; i < len; ++i)
      seqs[b].push_back(static_cast<int64_t>(1 + (b * 5 + i * 3 + step * 7 + i * b) % 7));
    labels[b] = seqs[b][0] < 4 ? 1 : 0;
  }
  auto padded = nn::generate_padding_mask<AD>(0, seqs, std::nullopt);
  return {padded.tensor, padded.mask, Tensor<AD, 1, Int>::from_data(TensorData(labels, {batch}))};
}

TEST(Training, TransformerClassifierLossFalls) {
  AD::seed(2);
  auto settings = nn::TransformerEncoderConfig(32, 64, 4, 2).with_dropout(0.0).with_norm_first(true);
  TextClassifier<AD> model{nn::EmbeddingConfig(8, 32).init<AD>(),
                           nn::PositionalEncodingConfig(32).with_max_sequence_size(16).init<AD>(), settings.init<AD>(),
                           nn::LinearConfig(32, 2).init<AD>()};
  auto optim = optim::AdamWConfig().with_weight_decay(0.01).init();
  auto scheduler = optim::LinearLrSchedulerConfig(0.005, 0.001, 60).init();
  auto loss_fn = nn::CrossEntropyLossConfig().init<AD>();
  std::vector<double> losses;
  for (size_t step = 0; step < 60; ++step) {
    auto [tokens, pad, labels] = token_batch(32, step);
    auto loss = loss_fn.forward(model.forward(tokens, pad), labels);
    losses.push_back(loss.into_scalar().to_double());
    model = optim.step(scheduler->step(), model, optim::GradientsParams::from_grads(loss.backward(), model));
  }
  double first = mean(losses, 0, 5), last = mean(losses, 55, 60);
  std::cout << "transformer classifier: mean loss of steps 0-4 " << first << ", of steps 55-59 " << last << "\n";
  EXPECT_LT(last, 0.5 * first);
}

}  // namespace
}  // namespace scorch::nntest
