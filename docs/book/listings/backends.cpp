// The book's backends chapter (docs/book/09-backends.md): one function written once and run on Cpu, on Fusion<Cpu>
// (lazy, fused) and on their Autodiff decorators, with the same results.
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/stacks/fusion_cpu/autodiff.h>
#include <scorch/core/cli.h>

using namespace scorch;

// [book:generic]
/// GELU written out, then a row-wise softmax: any backend B.
template <Backend B> Tensor<B, 2> gelu_softmax(const Tensor<B, 2>& x) {
  auto gelu = x * 0.5 * ((x / std::sqrt(2.0)).erf() + 1.0);
  return activation::softmax(gelu, 1);
}
// [/book:generic]

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: backends\nThe book's backends chapter: one function run on Cpu, Fusion<Cpu> and their Autodiff "
      "decorators. No options.");
  PrintOptions digits;
  digits.precision = 4;  // the last digits of exp and erf differ between vector instruction sets
  set_print_options(digits);
  // [book:run]
  auto data = TensorData(std::vector<float>{-2, -1, 0, 1, 2, 3}, {2, 3});
  auto on_cpu = gelu_softmax(Tensor<Cpu, 2>::from_data(data)).to_data();
  auto fused = gelu_softmax(Tensor<FusionCpu, 2>::from_data(data)).to_data();  // one program for the GELU
  std::cout << "Cpu      " << on_cpu << "\nFusionCpu " << fused << "\nequal: " << (on_cpu == fused ? "yes" : "no")
            << "\n";
  std::cout << "fused programs run: " << FusionCpu::stats().programs << "\n";

  using AD = Autodiff<FusionCpu>;  // gradients through the fused backend
  auto x = Tensor<AD, 2>::from_data(data).require_grad();
  auto grads = gelu_softmax(x).slice({Slice::all(), Slice(0, 1)}).sum().backward();
  std::cout << "d out[:, 0] / dx " << x.grad(grads)->to_data() << "\n";
  // [/book:run]
}
