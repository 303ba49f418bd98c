// Replayed step graphs: the guide's CNN trained with a train::StepGraph, which captures the whole step (forward,
// backward, Adam) once and replays it as one CUDA graph launch per step. On a machine with a GPU the example trains
// on Autodiff<Cuda> and times the same steps eager and replayed; elsewhere StepGraph runs each step (same results).
#include <chrono>
#include <iostream>

#include <scorch/train/step_graph.h>

#include "guide/model_forward.hpp"
#include "guide/synthetic.hpp"

#ifdef SCORCH_HAVE_CUDA
#include <scorch/stacks/cuda/autodiff.h>
#include <scorch/core/cli.h>
#endif

using namespace scorch;

/// Trains for steps steps (replayed when graphed) and returns milliseconds per step after the first two.
template <class AD> double run_training(size_t steps, bool graphed) {
  AD::seed(42);
  auto model = guide::ModelConfig(10, 128).init<AD>();
  auto optim = optim::AdamConfig().with_capturable(true).init();  // the step count lives on the device
  auto loss_fn = nn::CrossEntropyLossConfig().init<AD>();
  train::StepGraph<AD> graph;
  Tensor<typename AD::InnerBackend, 1> loss;
  auto start = std::chrono::steady_clock::now();
  for (size_t step = 0; step < steps; ++step) {
    if (step == 2) start = std::chrono::steady_clock::now();
    auto [images, labels] = guide::synthetic_batch<AD>(64, step, 7);
    auto body = [&] {
      auto l = loss_fn.forward(model.forward(images), labels);
      model = optim.step(1e-3, model, optim::GradientsParams::from_grads(l.backward(), model));
      loss = l.inner();
    };
    if (!graphed) {
      body();
    } else {
      graph.step(
          train::StepTensors<AD>().add(images).add(labels),
          [&] { return train::StepTensors<AD>().add_module(model).add_optimizer(optim); }, body);
    }
    if (step % 10 == 0 || step + 1 == steps)
      std::cout << "  step " << step << "  loss " << loss.into_scalar().to_double() << "\n";
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
              static_cast<double>(steps - 2);
  const auto& s = graph.stats();
  if (graphed)
    std::cout << "  eager steps " << s.eager_steps << ", captures " << s.captures << ", replays " << s.replays
              << ", kernels in the graph " << s.graph_kernels << "\n";
  return ms;
}

template <class AD> void compare(const char* name, size_t steps) {
  std::cout << name << ", eager:\n";
  double eager = run_training<AD>(steps, false);
  std::cout << name << ", StepGraph" << (train::StepGraph<AD>::captures() ? " (replayed)" : " (runs each step here)")
            << ":\n";
  double graphed = run_training<AD>(steps, true);
  std::cout << name << ": " << eager << " ms per step eager, " << graphed << " ms with StepGraph (the times include "
            << "making each batch on the host and reading its loss)\n";
}

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: step-graph\nThe guide's CNN trained with train::StepGraph (one CUDA graph launch per step on a GPU), "
      "eager and replayed steps timed side by side. No options.");
#ifdef SCORCH_HAVE_CUDA
  if (backends::cuda::is_available()) {
    compare<Autodiff<Cuda>>("Autodiff<Cuda>", 200);
    return 0;
  }
#endif
  compare<Autodiff<Cpu>>("Autodiff<Cpu>", 12);
}
