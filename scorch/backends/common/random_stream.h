#pragma once
// A GPU backend's random stream (Cuda's, Vulkan's): a key from the seed and a count of draws; random tensor number d
// is Philox4x32-10 of the counters (element, d) under the key on both (Cuda turns 53 of the bits into a double,
// Vulkan's narrow shaders 24 into a float, so f32 values may differ in their last bit).
#include <atomic>
#include <cstdint>

#include "scorch/core/rng.h"

namespace scorch::backends {

struct RandomStream {
  std::atomic<uint64_t> key{mix64(0x5eed)};
  std::atomic<uint64_t> draws{0};
  /// Restarts the stream from seed s.
  void seed(uint64_t s) {
    key.store(mix64(s));
    draws.store(0);
  }
};

}  // namespace scorch::backends
