// nn workloads paired with bench/anchors/torch_cpu_anchor.py: the guide's CNN train step
// (batch 64: forward, cross-entropy, backward, Adam) and inference step, and one
// nn::TransformerEncoder layer (d_model 256, 8 heads, d_ff 1024, relu, seq 128, batch 8)
// forward + backward.
#include "bench.h"
#include "guide/model_forward.hpp"

namespace scorch::bench {
namespace {

template <class AD> void guide_cnn(const Options& o) {
  auto model = guide::ModelConfig(10, 512).template init<AD>();
  auto optim = optim::AdamConfig().init();
  auto images = Tensor<AD, 3>::random({64, 28, 28}, Distribution::normal(0, 1));
  auto labels = Tensor<AD, 1, Int>::random({64}, Distribution::uniform(0, 10));
  auto loss_fn = nn::CrossEntropyLossConfig().template init<AD>();
  // Flop count of one forward pass (the train step is about three times this).
  double flop = 2.0 * 64 * (8 * 26 * 26 * 9 + 16 * 24 * 24 * 8 * 9 + 1024 * 512 + 512 * 10);
  run(
      o, "mnist_guide_train_step_b64", 5,
      [&] {
        auto loss = loss_fn.forward(model.forward(images), labels);
        auto grads = optim::GradientsParams::from_grads(loss.backward(), model);
        model = optim.step(1e-4, model, std::move(grads));
      },
      "img_per_s", [](double ms) { return 64 / ms * 1e3; });
  auto valid = model.valid();
  auto inner_images = images.inner();
  run(
      o, "mnist_guide_infer_b64", 5, [&] { (void)valid.forward(inner_images); }, "gflops",
      [&](double ms) { return flop / ms / 1e6; });
}

template <class AD> void transformer_layer(const Options& o) {
  const size_t batch = 8, seq = 128, d = 256, heads = 8, ff = 1024, rows = batch * seq;
  auto config = nn::TransformerEncoderConfig(d, ff, heads, 1)
                    .with_dropout(0.0)
                    .with_activation(nn::ActivationConfig::of(nn::ActivationKind::Relu));
  auto encoder = config.template init<AD>();
  auto x = Tensor<AD, 3>::random({batch, seq, d}, Distribution::normal(0, 1)).require_grad();
  run(
      o, "transformer_layer_d256_fwd_bwd", 2,
      [&] { (void)encoder.forward(nn::TransformerEncoderInput<AD>(x)).sum().backward(); }, "gflops_fwd",
      [&](double ms) {
        double flop = 2.0 * rows * d * (4.0 * d + 2.0 * ff) + 4.0 * batch * heads * seq * seq * (d / heads);
        return flop / ms / 1e6;
      });
}

}  // namespace

template <class B> void nn_workloads(const Options& o) {
  guide_cnn<Autodiff<B>>(o);
  transformer_layer<Autodiff<B>>(o);
}
SCORCH_BENCH_INSTANTIATE(nn_workloads);

}  // namespace scorch::bench
