// router: pre-processing on the Cpu and the model on the GPU, with one tensor type (docs/book/09-backends.md).
// The guide's CNN (seeded, untrained) classifies synthetic 8-bit images: they are decoded and normalized on the Cpu,
// moved to the accelerator for the model, and the predictions come back to the Cpu. The accelerator is Cuda where the
// build has it and a GPU is visible, else a second Cpu backend; the predictions equal the plain Cpu backend's.
#include <iostream>
#include <scorch/router/router.h>
#include <scorch/scorch.hpp>
#ifdef SCORCH_EXAMPLE_CUDA
#include <scorch/backends/cuda/cuda_backend.h>
#endif

#include "guide/model_forward.hpp"
#include "guide/synthetic.hpp"
#include <scorch/core/cli.h>

namespace {

using namespace scorch;

#ifdef SCORCH_EXAMPLE_CUDA
using Accelerator = Cuda;
#else
using Accelerator = Cpu;
#endif

/// Synthetic images as bytes 0-255, as a decoder would hand them over.
TensorData raw_images(size_t batch) {
  auto pixels = guide::synthetic_batch<Cpu>(batch, 0, 3).first.to_data().to_vector<float>();
  std::vector<uint8_t> bytes(pixels.size());
  for (size_t i = 0; i < pixels.size(); ++i) bytes[i] = static_cast<uint8_t>(pixels[i] * 200.0f + 20.0f);
  return TensorData(bytes, {batch, 28, 28});
}

// [book:router]
/// One tensor type over two backends: position 0 is the Cpu, position 1 the accelerator.
using B = Router<Cpu, Accelerator>;

/// Decodes and normalizes bytes on the Cpu, runs the model on the accelerator, returns the classes on the Cpu.
Tensor<B, 1, Int> classify(const guide::Model<B>& model, const TensorData& bytes) {
  auto cpu = B::device<0>(), accelerator = B::device<1>();
  auto images = Tensor<B, 3, Int>::from_data(bytes, cpu).float_() / 255.0;  // on the Cpu
  auto normalized = (images - 0.2860) / 0.3530;                             // Fashion-MNIST's mean and std
  auto logits = model.forward(normalized.to_device(accelerator));           // on the accelerator
  return logits.argmax(1).reshape<1>({-1}).to_device(cpu);                  // back on the Cpu
}
// [/book:router]

}  // namespace

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: router\nThe guide's CNN behind Router: pre-processing on the Cpu, the model on Cuda when a GPU is "
      "visible (else a second Cpu), predictions back on the Cpu. No options.");
  try {
    Cpu::seed(5);
    auto config = guide::ModelConfig(10, 128);
    auto reference = config.init<Cpu>();
    // [book:router-model]
    auto model = config.init_with<B>(reference.into_record(), B::device<1>());  // parameters on the accelerator
    // [/book:router-model]
    auto bytes = raw_images(16);
    auto predicted = classify(model, bytes);
    auto images = Tensor<Cpu, 3, Int>::from_data(bytes).float_() / 255.0;
    auto expected = reference.forward((images - 0.2860) / 0.3530).argmax(1).reshape<1>({-1});
    std::cout << "router: " << B::name() << ", model on " << model.conv1.weight.val().device().to_string()
              << ", predictions on " << predicted.device().to_string() << "\n"
              << "predicted " << predicted.to_data() << "\n"
              << "same as the Cpu backend: " << (predicted.to_data() == expected.to_data() ? "yes" : "NO") << "\n";
    return predicted.to_data() == expected.to_data() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "router: " << e.what() << "\n";
    return 1;
  }
}
