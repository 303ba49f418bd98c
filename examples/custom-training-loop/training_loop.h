#pragma once
// The custom training loop written once for every backend (main.cpp picks one with --backend): the guide's CNN
// trained with AdamW, gradient clipping, a learning-rate schedule and gradient accumulation on synthetic images,
// evaluated with the inference copy from model.valid(), and model + optimizer + scheduler saved.
#include <filesystem>
#include <iostream>

#include "guide/model_forward.hpp"
#include "guide/synthetic.hpp"

namespace training_loop {

using namespace scorch;

/// Runs the loop on AD (30 steps), printing the loss and learning rate, the accuracy and the saved files.
template <AutodiffBackend AD> void train_loop() {
  AD::seed(42);
  auto model = guide::ModelConfig(10, 128).with_dropout(0.2).init<AD>();
  auto optim =
      optim::AdamWConfig().with_weight_decay(1e-4).with_grad_clipping(optim::GradientClippingConfig::norm(1.0)).init();
  auto scheduler = optim::CosineAnnealingLrSchedulerConfig(3e-3, 30).with_min_lr(1e-4).init();
  auto loss_fn = nn::CrossEntropyLossConfig().with_smoothing(0.05).init<AD>();
  const size_t accumulate = 2;  // two half-batches per optimizer step

  for (size_t step = 0; step < 30; ++step) {
    optim::GradientsAccumulator<guide::Model<AD>> accumulator;
    double loss_sum = 0;
    for (size_t part = 0; part < accumulate; ++part) {
      auto [images, labels] = guide::synthetic_batch<AD>(16, step * accumulate + part, 3);
      auto loss = loss_fn.forward(model.forward(images), labels);
      loss_sum += loss.into_scalar().to_double();
      accumulator.accumulate(model, optim::GradientsParams::from_grads(loss.backward(), model));
    }
    double lr = scheduler->step();
    model = optim.step(lr, model, accumulator.grads());
    if (step % 5 == 0 || step == 29)
      std::cout << "step " << step << "  lr " << lr << "  loss " << loss_sum / accumulate << "\n";
  }

  auto inference = model.valid();  // Model<AD::InnerBackend>: no graph, dropout off
  auto [images, labels] = guide::synthetic_batch<AD>(100, 1000, 3);
  auto predicted = inference.forward(images.inner()).argmax(1).template reshape<1>({-1});
  double accuracy = predicted.equal(labels.inner()).int_().float_().mean().into_scalar().to_double();
  std::cout << "accuracy on 100 new images: " << accuracy << "\n";

  auto dir = std::filesystem::temp_directory_path() / "scorch-training-loop";
  std::filesystem::create_directories(dir);
  std::cout << "saved " << model.save_file((dir / "model").string(), CompactRecorder{}) << ", "
            << optim.save((dir / "optim").string(), DefaultFileRecorder<>{}) << ", "
            << DefaultFileRecorder<>{}.record(scheduler->to_record(), (dir / "scheduler").string()) << "\n";
  std::filesystem::remove_all(dir);
}

}  // namespace training_loop
