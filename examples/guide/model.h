#pragma once
// The Burn Book guide's model: two convolutions, adaptive pooling, dropout and two linear
// layers, classifying 28×28 images (MNIST / Fashion-MNIST) into num_classes.
#include <scorch/scorch.hpp>

namespace guide {

using namespace scorch;

template <Backend B> struct Model {
  nn::Conv2d<B> conv1, conv2;
  nn::AdaptiveAvgPool2d pool;
  nn::Dropout dropout;
  nn::Linear<B> linear1, linear2;
  nn::Relu activation;
  SCORCH_MODULE(Model, conv1, conv2, pool, dropout, linear1, linear2, activation)

  /// images [batch, height, width] → logits [batch, num_classes].
  Tensor<B, 2> forward(const Tensor<B, 3>& images) const {
    auto [batch, height, width] = images.dims();
    auto x = images.template reshape<4>({batch, size_t{1}, height, width});
    x = dropout.forward(conv1.forward(x));
    x = activation.forward(dropout.forward(conv2.forward(x)));
    auto flat = pool.forward(x).template reshape<2>({batch, size_t{16 * 8 * 8}});
    flat = activation.forward(dropout.forward(linear1.forward(flat)));
    return linear2.forward(flat);
  }
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
};

}  // namespace guide
