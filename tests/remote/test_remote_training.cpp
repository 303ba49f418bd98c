// Autodiff<Remote> trains the guide's CNN on a scorch-server over Cpu: the same seed, batch and Adam steps give the
// same losses as training on local Autodiff<Cpu> (the server runs Cpu's kernels in the same order).
#include <gtest/gtest.h>

#include "guide/model_forward.hpp"
#include "scorch/stacks/remote/autodiff.h"
#include "server_process.h"

namespace scorch {
namespace {

/// Losses of steps Adam steps of the guide's CNN on backend AD (seeded 7), on a fixed batch.
template <class AD> std::vector<double> guide_losses(int steps, const typename AD::Device& device = {}) {
  AD::seed(7);
  auto model = guide::ModelConfig(10, 32).init<AD>(device);
  auto optim = optim::AdamConfig().init();
  std::vector<float> pixels(8 * 28 * 28);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>((i * 37) % 101) / 101.0f;
  std::vector<int64_t> labels = {0, 1, 2, 3, 4, 5, 6, 7};
  auto images = Tensor<AD, 3>::from_data(TensorData(pixels, {8, 28, 28}), device);
  auto targets = Tensor<AD, 1, Int>::from_data(TensorData(labels, {8}), device);
  auto loss_fn = nn::CrossEntropyLossConfig().init<AD>();
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    auto loss = loss_fn.forward(model.forward(images), targets);
    losses.push_back(loss.inner().into_scalar().to_double());
    auto grads = optim::GradientsParams::from_grads(loss.backward(), model);
    model = optim.step(1e-3, model, std::move(grads));
  }
  return losses;
}

TEST(RemoteTraining, AutodiffRemoteTrainsTheGuideCnnWithLocalCpusLosses) {
  testing::ServerProcess server("training-token", {"--backend", "cpu"});  // Cpu's kernels and random stream
  auto device = Remote::connect(server.endpoint(), "training-token");
  auto remote = guide_losses<Autodiff<Remote>>(4, device);
  auto local = guide_losses<Autodiff<Cpu>>(4);
  ASSERT_EQ(remote.size(), local.size());
  for (size_t i = 0; i < local.size(); ++i) EXPECT_NEAR(remote[i], local[i], 1e-6 * std::abs(local[i])) << "step " << i;
  EXPECT_LT(remote.back(), remote.front()) << "the loss falls on a fixed batch";
}

}  // namespace
}  // namespace scorch
