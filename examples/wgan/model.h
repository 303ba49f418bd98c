#pragma once
// A Wasserstein GAN (WGAN, weight clipping) for 28 × 28 digits: a generator from noise to images in [−1, 1] and a
// critic that scores images (higher = more like the data); both multilayer perceptrons with leaky ReLUs.
#include <scorch/scorch.hpp>

namespace wgan {

using namespace scorch;

inline constexpr size_t kPixels = 28 * 28;

/// Three linear layers with leaky ReLUs between them; tanh on the output when squash (the generator's images).
template <Backend B> struct Perceptron {
  nn::Linear<B> input, hidden, output;
  nn::LeakyRelu activation;
  bool squash = false;
  SCORCH_MODULE(Perceptron, input, hidden, output, activation, squash)

  /// x [n, in] → [n, out] (in [−1, 1] when squash).
  Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
    auto h = activation.forward(hidden.forward(activation.forward(input.forward(x))));
    return squash ? output.forward(h).tanh() : output.forward(h);
  }
};

/// noise [n, latent] → images [n, 784] in [−1, 1].
template <Backend B> using Generator = Perceptron<B>;
/// images [n, 784] → scores [n, 1].
template <Backend B> using Critic = Perceptron<B>;

/// Both networks' sizes.
struct WganConfig {
  size_t latent = 64, width = 256;
  SCORCH_CONFIG(WganConfig, (), (latent, width))

  template <Backend B> Generator<B> generator(const typename B::Device& device = {}) const {
    return {nn::LinearConfig(latent, width).init<B>(device), nn::LinearConfig(width, 2 * width).init<B>(device),
            nn::LinearConfig(2 * width, kPixels).init<B>(device), nn::LeakyRelu{0.2}, true};
  }
  template <Backend B> Critic<B> critic(const typename B::Device& device = {}) const {
    return {nn::LinearConfig(kPixels, 2 * width).init<B>(device), nn::LinearConfig(2 * width, width).init<B>(device),
            nn::LinearConfig(width, 1).init<B>(device), nn::LeakyRelu{0.2}, false};
  }
};

/// Keeps every parameter within [−limit, limit]: the WGAN's bound on the critic's slope.
struct ClipWeights : ModuleMapper {
  double limit;
  template <class P> P map(const std::string&, const P& p) { return p.with_value(p.val().clamp(-limit, limit)); }
};

}  // namespace wgan
