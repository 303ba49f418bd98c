#pragma once
// The CNN: three blocks of 3 × 3 convolution, batch norm and ReLU (the first two followed by 2 × 2 max pooling),
// global average pooling, dropout and a linear layer to the categories; with the Learner's steps.
#include <scorch/scorch.hpp>
#include <scorch/train.hpp>

#include "icons.h"

namespace icons {

template <Backend B> struct IconBlock {
  nn::Conv2d<B> conv;
  nn::BatchNorm<B> norm;
  nn::Relu activation;
  SCORCH_MODULE(IconBlock, conv, norm, activation)

  Tensor<B, 4> forward(const Tensor<B, 4>& x) const { return activation.forward(norm.forward(conv.forward(x))); }
  static IconBlock init(size_t in, size_t out, const typename B::Device& device) {
    return {nn::Conv2dConfig({in, out}, {3, 3}).with_padding(nn::PaddingConfig::same()).init<B>(device),
            nn::BatchNormConfig(out).init<B>(device),
            {}};
  }
};

template <Backend B> struct IconNet {
  IconBlock<B> block1, block2, block3;
  nn::MaxPool2d pool;
  nn::AdaptiveAvgPool2d global_pool;
  nn::Dropout dropout;
  nn::Linear<B> head;
  SCORCH_MODULE(IconNet, block1, block2, block3, pool, global_pool, dropout, head)

  /// images [n, 1, 32, 32] → logits [n, categories].
  Tensor<B, 2> forward(const Tensor<B, 4>& images) const {
    auto x = pool.forward(block1.forward(images));
    x = pool.forward(block2.forward(x));
    x = global_pool.forward(block3.forward(x));
    return head.forward(dropout.forward(x.template reshape<2>({int64_t(images.dims()[0]), -1})));
  }

  train::ClassificationOutput<B> forward_classification(const IconBatch<B>& batch) const {
    auto logits = forward(batch.images);
    return {nn::CrossEntropyLossConfig().init<B>(logits.device()).forward(logits, batch.labels), logits, batch.labels};
  }
  train::TrainOutput<train::ClassificationOutput<B>> train_step(const IconBatch<B>& batch) const requires
      AutodiffBackend<B> {
    auto item = forward_classification(batch);
    return {*this, item.loss.backward(), item};
  }
  train::ClassificationOutput<B> valid_step(const IconBatch<B>& batch) const { return forward_classification(batch); }
};

struct IconNetConfig {
  size_t categories;
  size_t width = 32;
  double dropout = 0.3;
  SCORCH_CONFIG(IconNetConfig, (categories), (width, dropout))

  template <Backend B> IconNet<B> init(const typename B::Device& device = {}) const {
    return {IconBlock<B>::init(1, width, device),
            IconBlock<B>::init(width, 2 * width, device),
            IconBlock<B>::init(2 * width, 4 * width, device),
            nn::MaxPool2dConfig({2, 2}).init(),
            nn::AdaptiveAvgPool2dConfig({1, 1}).init(),
            nn::DropoutConfig(dropout).init(),
            nn::LinearConfig(4 * width, categories).init<B>(device)};
  }
};

}  // namespace icons
