#pragma once
// A model split across two devices (the first layer on one, the second on the other, the activations moved between
// them by to_device) and its losses over a few Adam steps: the router tests' training workload.
#include <gtest/gtest.h>

#include <scorch/scorch.hpp>

namespace scorch::testing {

/// Two linear layers, each on its own device; forward moves the hidden activations from the first to the second.
template <class B> struct SplitModel {
  nn::Linear<B> first, second;
  nn::Relu activation;
  typename B::Device second_device;
  SCORCH_MODULE(SplitModel, first, second, activation)

  Tensor<B, 2> forward(const Tensor<B, 2>& x) const {
    return second.forward(activation.forward(first.forward(x)).to_device(second_device));
  }
};

/// Losses of steps Adam steps on B with the layers on first and second, from the same weights on every backend
/// (drawn on the Cpu, seeded 11: a GPU's random stream is its own).
template <class B>
std::vector<double> split_losses(int steps, const typename B::Device& first, const typename B::Device& second) {
  Cpu::seed(11);
  auto first_config = nn::LinearConfig(6, 16), second_config = nn::LinearConfig(16, 3);
  auto first_weights = first_config.init<Cpu>().into_record(), second_weights = second_config.init<Cpu>().into_record();
  SplitModel<B> model{
      first_config.init_with<B>(first_weights, first), second_config.init_with<B>(second_weights, second), {}, second};
  auto optim = optim::AdamConfig().init();
  std::vector<float> xs(8 * 6);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.5f;
  auto x = Tensor<B, 2>::from_data(TensorData(xs, {8, 6}), first);
  auto targets = Tensor<B, 1, Int>::from_data(TensorData(std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1}, {8}), second);
  auto loss_fn = nn::CrossEntropyLossConfig().init<B>();
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    auto loss = loss_fn.forward(model.forward(x), targets);
    losses.push_back(loss.inner().into_scalar().to_double());
    auto grads = optim::GradientsParams::from_grads(loss.backward(), model);
    model = optim.step(1e-2, model, std::move(grads));
  }
  EXPECT_EQ(model.first.weight.val().device(), first);
  EXPECT_EQ(model.second.weight.val().device(), second);
  return losses;
}

}  // namespace scorch::testing
