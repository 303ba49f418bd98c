#pragma once
// Counter-based random numbers: value i of a draw depends only on (seed, draw offset, i), so
// kernels fill tensors in parallel and a seed reproduces every run exactly.
#include <atomic>
#include <cstdint>

#include "scorch/core/distribution.h"

namespace scorch {

/// SplitMix64 finalizer: a bijective 64-bit mix with full avalanche.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A seeded stream of counters; each draw reserves a disjoint range of counters.
class CounterRng {
 public:
  explicit CounterRng(uint64_t seed = 0x5eed) { seed_to(seed); }
  /// Restarts the stream from seed.
  void seed_to(uint64_t seed) {
    key_ = mix64(seed);
    counter_.store(0);
  }
  /// Reserves count counters and returns the first.
  uint64_t reserve(uint64_t count) { return counter_.fetch_add(count); }
  uint64_t key() const { return key_; }

 private:
  uint64_t key_ = 0;
  std::atomic<uint64_t> counter_{0};
};

/// 64 random bits for counter i of a stream with key.
constexpr uint64_t random_bits(uint64_t key, uint64_t i) { return mix64(key ^ mix64(i)); }

/// Uniform double in [0, 1) with 53 random bits.
constexpr double uniform01(uint64_t key, uint64_t i) {
  return static_cast<double>(random_bits(key, i) >> 11) * 0x1.0p-53;
}

/// Value i of a draw from dist, using counters 2i and 2i+1 past base.
double sample(const Distribution& dist, uint64_t key, uint64_t base, uint64_t i);

/// Counters a draw of n values from any distribution reserves.
constexpr uint64_t counters_for(uint64_t n) { return 2 * n; }

}  // namespace scorch
