// scorch-bench: one JSON line per workload, named as in ../shared/anchors/torch_cpu_anchor.py so
// each result pairs with PyTorch's. Method: warm up, time repetitions, report the median.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <scorch/scorch.hpp>

using namespace scorch;
using B = Cpu;

namespace {

double median_ms(const std::function<void()>& fn, int warm, int reps) {
  for (int i = 0; i < warm; ++i) fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    B::sync({});
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void report(const std::string& name, double ms, const std::string& extra_key, double extra) {
  std::printf("{\"bench\": \"%s\", \"backend\": \"%s\", \"threads\": %zu, \"median_ms\": %.4f, \"%s\": %.2f}\n", name.c_str(),
              B::name().c_str(), backends::cpu::num_threads(), ms, extra_key.c_str(), extra);
  std::fflush(stdout);
}

}  // namespace

int main() {
  B::seed(0);
  const size_t n = 1024;
  auto a = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1));
  auto b = Tensor<B, 2>::random({n, n}, Distribution::normal(0, 1));
  double ms = median_ms([&] { (void)a.matmul(b); }, 2, 7);
  report("matmul_f32_1024", ms, "gflops", 2.0 * n * n * n / ms / 1e6);

  auto x = Tensor<B, 1>::random({16 * 1024 * 1024}, Distribution::normal(0, 1));
  const double bytes = 2.0 * 16 * 1024 * 1024 * 4;
  ms = median_ms([&] { (void)((x * ((x / std::sqrt(2.0)).erf() + 1.0)) / 2.0); }, 3, 15);
  report("gelu_custom_16M", ms, "gb_per_s_eff", bytes / ms / 1e6);
  ms = median_ms([&] { (void)activation::gelu(x); }, 3, 15);
  report("gelu_builtin_16M", ms, "gb_per_s_eff", bytes / ms / 1e6);
  ms = median_ms([&] { (void)(x * 1.0); }, 3, 15);
  report("copy_16M", ms, "gb_per_s", bytes / ms / 1e6);

  auto z = Tensor<B, 2>::random({2048, 2048}, Distribution::normal(0, 1));
  ms = median_ms([&] { (void)activation::softmax(z, -1); }, 3, 15);
  report("softmax_2048x2048", ms, "gb_per_s_eff", 2.0 * 2048 * 2048 * 4 / ms / 1e6);
  return 0;
}
