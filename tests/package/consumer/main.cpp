// An installed Scorch's user: a tensor op, a layer's forward and backward on Autodiff<Cpu>, a record round trip.
// Prints "consumer ok" and exits 0 when the values are right.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <scorch/scorch.hpp>
#include <scorch/core/cli.h>

using namespace scorch;

int main(int argc, char** argv) {
  scorch::cli::answer_help(
      argc, argv,
      "usage: consumer\nAn installed Scorch's user: a tensor op, a layer's forward and backward, a record round trip; "
      "prints \"consumer ok\". No options.");
  using B = Autodiff<Cpu>;
  auto x = Tensor<B, 2>::from_data({{1., 2.}, {3., 4.}}, B::Device{}).require_grad();
  auto loss = (x * x).sum();
  auto grads = loss.backward();
  auto dx = x.grad(grads).value().to_data().to_vector<float>();  // d(sum x²)/dx = 2x
  if (std::fabs(loss.into_scalar().to_double() - 30.0) > 1e-5 || std::fabs(dx[3] - 8.0f) > 1e-5) {
    std::fprintf(stderr, "consumer: wrong values\n");
    return 1;
  }
  auto config = nn::LinearConfig(2, 3);
  auto layer = config.init<Cpu>();
  auto path = (std::filesystem::temp_directory_path() / "scorch_consumer_linear").string();
  auto file = layer.save_file(path, DefaultRecorder{});
  auto loaded = config.init<Cpu>().load_file(path, DefaultRecorder{}, Cpu::Device{});
  auto input = Tensor<Cpu, 2>::ones({1, 2});
  loaded.forward(input).to_data().assert_approx_eq(layer.forward(input).to_data(), Tolerance::rel_abs(0, 0));
  std::filesystem::remove(file);
  std::printf("consumer ok\n");
  return 0;
}
