// The fusion fuzzer: random graphs of elementwise, reduction and layout ops (random shapes, size-1 broadcasting,
// strided views, f32/f64/int/bool) run on Fusion<Cpu> and on Cpu in lockstep and must agree bit for bit.
// It runs SCORCH_FUSION_FUZZ_SECONDS (default 2) in CI; set it higher, and SCORCH_FUSION_FUZZ_SEED, to explore.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>

#include <scorch/scorch.hpp>
#include <scorch/stacks/fusion_cpu/autodiff.h>

namespace scorch::testing {
namespace {

using FB = FusionCpu;

/// One value of the graph on both stacks.
struct Pair {
  Tensor<FB, 2> fused;
  Tensor<Cpu, 2> eager;
};

/// Applies the same expression to both sides.
template <class F> Pair both(const Pair& p, F f) { return {f(p.fused), f(p.eager)}; }
template <class F> Pair both(const Pair& a, const Pair& b, F f) { return {f(a.fused, b.fused), f(a.eager, b.eager)}; }

double env_or(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v ? std::atof(v) : fallback;
}

class RandomGraph {
 public:
  explicit RandomGraph(uint64_t seed) : rng_(seed) {
    size_t rows = pick({1, 7, 256}), cols = pick({1, 5, 300});
    shape_ = Shape{rows, cols};
    for (Shape s : {shape_, Shape{1, cols}, Shape{rows, 1}}) {
      Cpu::seed(seed++);
      auto data = Tensor<Cpu, 2>::random(s, Distribution::uniform(-3, 3)).to_data();
      pool_.push_back({Tensor<FB, 2>::from_data(data), Tensor<Cpu, 2>::from_data(data)});
    }
  }

  /// Adds one random op over values of the pool.
  void step() {
    const Pair& a = pool_[index()];
    const Pair& b = pool_[index()];
    switch (rng_() % 12) {
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
      default: add(both(a, [](auto x) { return x.erf() * 2.0 + x.neg(); })); break;
    }
  }

  /// Every value of the pool agrees; returns how many were compared.
  size_t check() const {
    for (const auto& p : pool_) p.fused.to_data().assert_eq(p.eager.to_data());
    return pool_.size();
  }

 private:
  size_t pick(std::initializer_list<size_t> options) { return options.begin()[rng_() % options.size()]; }
  size_t index() { return rng_() % pool_.size(); }
  void add(Pair p) {
    if (pool_.size() >= 24) pool_.erase(pool_.begin() + static_cast<long>(index()));  // dropped handles
    pool_.push_back(std::move(p));
  }

  std::mt19937_64 rng_;
  Shape shape_;
  std::vector<Pair> pool_;
};

TEST(FusionFuzz, RandomGraphsAgreeWithCpu) {
  double seconds = env_or("SCORCH_FUSION_FUZZ_SECONDS", 2.0);
  auto seed = static_cast<uint64_t>(env_or("SCORCH_FUSION_FUZZ_SEED", 1.0));
  auto start = std::chrono::steady_clock::now();
  size_t graphs = 0, values = 0;
  auto before = FB::stats();
  while (graphs < 3 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    SCOPED_TRACE("graph seed " + std::to_string(seed + graphs));
    RandomGraph graph(seed + graphs);
    for (int i = 0; i < 40; ++i) graph.step();
    values += graph.check();
    ++graphs;
    if (::testing::Test::HasFailure()) break;
  }
  auto after = FB::stats();
  EXPECT_GT(after.fused_programs, before.fused_programs);  // some graphs ran blocked
  std::printf("fusion fuzz: %zu graphs, %zu values, %zu programs (%zu fused)\n", graphs, values,
              after.programs - before.programs, after.fused_programs - before.fused_programs);
}

}  // namespace
}  // namespace scorch::testing
