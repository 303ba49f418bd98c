// A newcomer's mistake that must not compile, with a sentence saying what to do: backward() on a backend without
// Autodiff. tests/diagnostics/check.sh expects the static_assert's message.
// expect: backward() needs an Autodiff backend: compute on Tensor<Autodiff<B>, D>
#include <scorch/scorch.hpp>

int main() {
  auto x = scorch::Tensor<scorch::Cpu, 1>::ones({3});
  auto grads = (x * x).sum().backward();
}
