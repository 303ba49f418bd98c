#pragma once
// The guide's data: MNIST-style items batched into normalized image tensors and class targets.
#include <scorch/data/dataloader.h>
#include <scorch/data/sources/mnist.h>
#include <scorch/scorch.hpp>

namespace guide {

using namespace scorch;

/// A batch: images [batch, 28, 28] normalized like PyTorch's MNIST example, and labels [batch].
template <Backend B> struct MnistBatch {
  Tensor<B, 3> images;
  Tensor<B, 1, Int> targets;
};

/// Items → one batch tensor, normalized as ((pixel / 255) − 0.1307) / 0.3081.
template <Backend B> struct MnistBatcher final : data::Batcher<B, data::MnistItem, MnistBatch<B>> {
  MnistBatch<B> batch(std::vector<data::MnistItem> items, const typename B::Device& device) const override {
    const size_t n = items.size(), pixels = 28 * 28;
    std::vector<float> images(n * pixels);
    std::vector<int64_t> targets(n);
    for (size_t i = 0; i < n; ++i) {
      for (size_t p = 0; p < pixels; ++p) images[i * pixels + p] = (items[i].image[p] / 255.0f - 0.1307f) / 0.3081f;
      targets[i] = items[i].label;
    }
    return {Tensor<B, 3>::from_data(TensorData(images, {n, size_t{28}, size_t{28}}), device),
            Tensor<B, 1, Int>::from_data(TensorData(targets, {n}), device)};
  }
};

}  // namespace guide
