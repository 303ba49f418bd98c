// The book's autodiff example (docs/book/04-autodiff.md): wrap Cpu in Autodiff, compute, call backward, read a
// gradient.
#include <iostream>

#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: autodiff\nThe book's autodiff example: Cpu wrapped in Autodiff, a computation, backward() and a gradient "
      "printed (docs/book/04-autodiff.md). No options.");
  using namespace scorch;
  using Backend = Autodiff<Cpu>;

  auto x = Tensor<Backend, 2>::random({32, 32}, Distribution::Default);
  auto y = Tensor<Backend, 2>::random({32, 32}, Distribution::Default).require_grad();

  auto tmp = x + y;
  tmp = tmp * x;
  tmp = tmp.exp();

  auto grads = tmp.backward();
  auto y_grad = y.grad(grads).value();
  std::cout << y_grad.slice({Slice(0, 2), Slice(0, 4)}) << "\n";
  return 0;
}
