#pragma once
// Synthetic 28×28 images for the examples that need no dataset: the class (0–9) of image b in batch `step` is
// (b · stride + step) mod 10, and it sets where a bright 6×4 block sits.
#include <scorch/scorch.hpp>

#include <utility>
#include <vector>

namespace guide {

/// batch images [batch, 28, 28] and their classes [batch] on AD's default device.
template <class AD>
std::pair<scorch::Tensor<AD, 3>, scorch::Tensor<AD, 1, scorch::Int>> synthetic_batch(size_t batch, size_t step,
                                                                                     size_t stride) {
  std::vector<float> pixels(batch * 28 * 28, 0.0f);
  std::vector<int64_t> labels(batch);
  for (size_t b = 0; b < batch; ++b) {
    size_t c = (b * stride + step) % 10, row = (c / 5) * 14 + 4, col = (c % 5) * 5 + 2;
    labels[b] = static_cast<int64_t>(c);
    for (size_t r = row; r < row + 6; ++r)
      for (size_t k = col; k < col + 4; ++k) pixels[b * 784 + r * 28 + k] = 1.0f;
  }
  return {scorch::Tensor<AD, 3>::from_data(scorch::TensorData(pixels, {batch, 28, 28})),
          scorch::Tensor<AD, 1, scorch::Int>::from_data(scorch::TensorData(labels, {batch}))};
}

}  // namespace guide
