// A custom op with its own Cpu kernel and its own backward (see fused_matmul_add_relu.h):
// inference on Cpu, training on Autodiff<Cpu>.
#include <iostream>

#include "fused_matmul_add_relu.h"
#include <scorch/core/cli.h>

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           "usage: custom_op\nA custom op with its own Cpu kernel and backward: inference on Cpu, "
                           "training on Autodiff<Cpu>. "
                           "No options.");
  using namespace scorch;
  using AD = Autodiff<Cpu>;
  auto x = Tensor<AD, 2>::random({4, 8}, Distribution::Default);
  auto w = Tensor<AD, 2>::random({8, 3}, Distribution::normal(0, 0.5)).require_grad();
  auto b = Tensor<AD, 2>::random({1, 3}, Distribution::normal(0, 0.5)).require_grad();
  auto y = custom::fused_matmul_add_relu(x, w, b);
  auto grads = y.sum().backward();
  std::cout << "relu(x·w + b) =\n" << y << "\n";
  std::cout << "d/dw =\n" << *w.grad(grads) << "\n";
  std::cout << "d/db =\n" << *b.grad(grads) << "\n";
  // The same function on the inner backend runs the custom kernel without any graph.
  auto inference = custom::fused_matmul_add_relu(x.inner(), w.inner(), b.inner());
  std::cout << "inference on " << Cpu::name()
            << " matches: " << (inference.to_data() == y.inner().to_data() ? "yes" : "no") << "\n";
  return 0;
}
