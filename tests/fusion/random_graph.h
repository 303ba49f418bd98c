#pragma once
// The fusion fuzzer's graphs: random elementwise, reduction and layout ops (random shapes, size-1 broadcasting,
// strided views, f32/f64/int/bool casts) applied in lockstep to a Fusion stack and to its inner backend.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <vector>

#include <scorch/scorch.hpp>

namespace scorch::testing {

/// SCORCH_FUSION_FUZZ_* settings: the variable's value, else fallback.
inline double fuzz_setting(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v ? std::atof(v) : fallback;
}

/// Random graphs over Fused (a Fusion stack) and Eager (its inner backend) on device.
template <class Fused, class Eager> class RandomGraph {
 public:
  /// One value of the graph on both stacks.
  struct Pair {
    Tensor<Fused, 2> fused;
    Tensor<Eager, 2> eager;
  };

  RandomGraph(uint64_t seed, typename Eager::Device device) : rng_(seed) {
    size_t rows = pick({1, 7, 256}), cols = pick({1, 5, 300});
    for (Shape s : {Shape{rows, cols}, Shape{1, cols}, Shape{rows, 1}}) {
      Cpu::seed(seed++);
      auto data = Tensor<Cpu, 2>::random(s, Distribution::uniform(-3, 3)).to_data();
      pool_.push_back({Tensor<Fused, 2>::from_data(data, device), Tensor<Eager, 2>::from_data(data, device)});
    }
  }

  /// Adds one random op over values of the pool.
  void step() {
    const Pair& a = pool_[index()];
    const Pair& b = pool_[index()];
    switch (rng_() % 16) {
      case 0: add(both(a, [](auto x) { return x.exp().clamp(-1e6, 1e6); })); break;
      case 1: add(both(a, b, [](auto x, auto y) { return x + y; })); break;
      case 2: add(both(a, b, [](auto x, auto y) { return x * y - 0.5; })); break;
      case 3: add(both(a, [](auto x) { return x.abs().sqrt() / 3.0; })); break;
      case 4:
        add(both(a, b, [](auto x, auto y) {
          auto z = x + y;
          return z.mask_where(z.greater_elem(0.0), z.tanh());
        }));
        break;
      case 5: add(both(a, [](auto x) { return x.mask_fill(x.lower_elem(0.25), -2.0); })); break;
      case 6: add(both(a, [](auto x) { return x.cast(DType::F64).sin().cast(DType::F32); })); break;
      case 7: add(both(a, [](auto x) { return (x * 4.0).int_().float_() * 0.25; })); break;
      case 8: add(both(a, [](auto x) { return x.sum_dim(1) / 7.0; })); break;  // a reduction reads pending values
      case 9: add(both(a, [](auto x) { return x.swap_dims(0, 1).swap_dims(0, 1) * 1.5; })); break;
      case 10: add(both(a, [](auto x) { return activation::sigmoid(x) + activation::relu(x); })); break;
      case 11: add(both(a, b, [](auto x, auto y) { return activation::softmax(x * 1.5 + y, 1); })); break;
      case 12: add(both(a, [](auto x) { return activation::log_softmax(x.clamp(-20.0, 20.0) - 0.5, 0); })); break;
      case 13: add(both(a, [](auto x) { return (x.clamp(-20.0, 20.0).exp() * 0.1).mean_dim(0); })); break;
      case 14: add(both(a, b, [](auto x, auto y) { return (x * y).max_dim(1) - (x - y).min_dim(1); })); break;
      default: add(both(a, [](auto x) { return x.erf() * 2.0 + x.neg(); })); break;
    }
  }

  /// Every value of the pool agrees exactly (tolerance unset) or within tolerance; returns how many were compared.
  size_t check(std::optional<Tolerance> tolerance = std::nullopt) const {
    for (const auto& p : pool_) {
      if (tolerance) p.fused.to_data().assert_approx_eq(p.eager.to_data(), *tolerance);
      else p.fused.to_data().assert_eq(p.eager.to_data());
    }
    return pool_.size();
  }

 private:
  /// Applies the same expression to both sides.
  template <class F> static Pair both(const Pair& p, F f) { return {f(p.fused), f(p.eager)}; }
  template <class F> static Pair both(const Pair& a, const Pair& b, F f) {
    return {f(a.fused, b.fused), f(a.eager, b.eager)};
  }
  size_t pick(std::initializer_list<size_t> options) { return options.begin()[rng_() % options.size()]; }
  size_t index() { return rng_() % pool_.size(); }
  void add(Pair p) {
    if (pool_.size() >= 24) pool_.erase(pool_.begin() + static_cast<long>(index()));  // dropped handles
    pool_.push_back(std::move(p));
  }

  std::mt19937_64 rng_;
  std::vector<Pair> pool_;
};

/// Runs random graphs for SCORCH_FUSION_FUZZ_SECONDS (default 2; at least 3 graphs) from SCORCH_FUSION_FUZZ_SEED,
/// checking each; prints and returns the graphs run.
template <class Fused, class Eager>
size_t fuzz_random_graphs(typename Eager::Device device, std::optional<Tolerance> tolerance = std::nullopt) {
  double seconds = fuzz_setting("SCORCH_FUSION_FUZZ_SECONDS", 2.0);
  auto seed = static_cast<uint64_t>(fuzz_setting("SCORCH_FUSION_FUZZ_SEED", 1.0));
  auto start = std::chrono::steady_clock::now();
  size_t graphs = 0, values = 0;
  while (graphs < 3 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    SCOPED_TRACE("graph seed " + std::to_string(seed + graphs));
    RandomGraph<Fused, Eager> graph(seed + graphs, device);
    for (int i = 0; i < 40; ++i) graph.step();
    values += graph.check(tolerance);
    ++graphs;
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("fusion fuzz (%s): %zu graphs, %zu values\n", Fused::name().c_str(), graphs, values);
  return graphs;
}

}  // namespace scorch::testing
