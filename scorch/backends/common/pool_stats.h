#pragma once
// What a GPU backend's caching memory pool holds on one device (Cuda's, Vulkan's), in bytes and counts.
#include <cstddef>
#include <cstdint>

namespace scorch::backends {

/// A device pool's counters.
struct PoolStats {
  size_t in_use = 0;            ///< handed out to live tensors (rounded to size classes)
  size_t cached = 0;            ///< freed blocks kept for reuse
  size_t peak_in_use = 0;       ///< highest in_use since the last reset_peak
  size_t peak_reserved = 0;     ///< highest in_use + cached since the last reset_peak
  uint64_t allocations = 0;     ///< blocks handed out
  uint64_t cache_hits = 0;      ///< of which were served from the cache
  uint64_t device_mallocs = 0;  ///< allocations made from the driver (cudaMalloc, vkAllocateMemory)
};

}  // namespace scorch::backends
