#pragma once
// A Wasserstein GAN (WGAN, weight clipping) for 28 × 28 digits: a generator from noise to images in [−1, 1] and a
// critic that scores images (higher = more like the data); both multilayer perceptrons with leaky ReLUs.
#include <scorch/scorch.hpp>

namespace wgan {

using namespace scorch;

inline constexpr size_t kPixels = 28 * 28;

template <Backend B> struct Generator {
  nn::Linear<B> input, hidden, output;
  nn::LeakyRelu activation;
  SCORCH_MODULE(Generator, input, hidden, output, activation)

  /// noise [n, latent] → images [n, 784] in [−1, 1].
  Tensor<B, 2> forward(const Tensor<B, 2>& noise) const {
    auto x = activation.forward(input.forward(noise));
    return output.forward(activation.forward(hidden.forward(x))).tanh();
  }
};

template <Backend B> struct Critic {
  nn::Linear<B> input, hidden, output;
  nn::LeakyRelu activation;
  SCORCH_MODULE(Critic, input, hidden, output, activation)

  /// images [n, 784] → scores [n, 1].
  Tensor<B, 2> forward(const Tensor<B, 2>& images) const {
    auto x = activation.forward(input.forward(images));
    return output.forward(activation.forward(hidden.forward(x)));
  }
};

/// Both networks' sizes.
struct WganConfig {
  size_t latent = 64, width = 256;
  SCORCH_CONFIG(WganConfig, (), (latent, width))

  template <Backend B> Generator<B> generator(const typename B::Device& device = {}) const {
    return {nn::LinearConfig(latent, width).init<B>(device), nn::LinearConfig(width, 2 * width).init<B>(device),
            nn::LinearConfig(2 * width, kPixels).init<B>(device), nn::LeakyRelu{0.2}};
  }
  template <Backend B> Critic<B> critic(const typename B::Device& device = {}) const {
    return {nn::LinearConfig(kPixels, 2 * width).init<B>(device), nn::LinearConfig(2 * width, width).init<B>(device),
            nn::LinearConfig(width, 1).init<B>(device), nn::LeakyRelu{0.2}};
  }
};

/// Keeps every parameter within [−limit, limit]: the WGAN's bound on the critic's slope.
struct ClipWeights : ModuleMapper {
  double limit;
  template <class P> P map(const std::string&, const P& p) { return p.with_value(p.val().clamp(-limit, limit)); }
};

}  // namespace wgan
