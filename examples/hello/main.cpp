// The Burn Book's first snippet: two tensors added and printed.
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

using namespace scorch;

int main(int argc, char** argv) {
  scorch::cli::answer_help(argc, argv,
                           "usage: hello\nThe Burn Book's first snippet: two tensors added and printed. No options.");
  using B = Cpu;
  auto device = B::Device{};
  // Creation of two tensors, the first with explicit values and the second one with ones,
  // with the same shape as the first.
  auto tensor_1 = Tensor<B, 2>::from_data({{2., 3.}, {4., 5.}}, device);
  auto tensor_2 = Tensor<B, 2>::ones_like(tensor_1);
  // Print the element-wise addition (done with the Cpu backend) of the two tensors.
  std::cout << tensor_1 + tensor_2 << "\n";
}
