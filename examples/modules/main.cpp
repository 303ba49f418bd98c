// The functional ops on a small image batch: convolution, pooling, resampling, attention.
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

using namespace scorch;
namespace md = scorch::functional;

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: modules\nThe functional ops on a small image batch: convolution, pooling, resampling, attention. "
      "No options.");
  using B = Cpu;
  B::seed(0);
  auto images = Tensor<B, 4>::random({2, 3, 32, 32}, Distribution::normal(0, 1));
  auto weight = Tensor<B, 4>::random({8, 3, 3, 3}, Distribution::normal(0, 0.2));
  auto bias = Tensor<B, 1>::zeros({8});

  auto features = activation::relu(md::conv2d(images, weight, bias, {.stride = {2, 2}, .padding = {1, 1}}));
  auto [pooled, indices] = md::max_pool2d_with_indices(features, {2, 2}, {2, 2}, {0, 0});
  auto summary = md::adaptive_avg_pool2d(pooled, {1, 1});
  auto upsampled = md::interpolate(pooled, {16, 16}, {.mode = InterpolateMode::Bilinear});
  std::cout << "conv " << features.shape().to_string() << ", max pool " << pooled.shape().to_string() << " (indices "
            << indices.shape().to_string() << "), adaptive avg " << summary.shape().to_string() << ", bilinear "
            << upsampled.shape().to_string() << "\n";

  // Attention over the 64 pooled positions as a sequence of 8-dim tokens, one head, causal.
  auto tokens = pooled.reshape<4>({2, 1, 8, 64}).swap_dims(2, 3);
  auto causal = Tensor<B, 2>::ones({64, 64}).triu(1).bool_().reshape<4>({1, 1, 64, 64});
  auto attended = md::attention(tokens, tokens, tokens, causal);
  std::cout << "attention " << attended.shape().to_string() << ", first token unchanged: "
            << (attended.slice({Slice::all(), Slice::all(), Slice(0, 1)}) -
                tokens.slice({Slice::all(), Slice::all(), Slice(0, 1)}))
                   .abs()
                   .max()
                   .into_scalar()
                   .to_double()
            << "\n";
}
