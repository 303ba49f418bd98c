#include "scorch/backends/cpu/host_cache.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace scorch::backends::cpu::host_cache {
namespace {

constexpr size_t kClass = size_t(2) << 20;

size_t default_limit() {
  if (const char* mb = std::getenv("SCORCH_CPU_CACHE_MB"))
    return static_cast<size_t>(std::strtoull(mb, nullptr, 10)) << 20;
  return size_t(1) << 30;
}

struct Cache {
  std::mutex mutex;
  std::map<size_t, std::vector<void*>> free_blocks;
  size_t held = 0, limit = default_limit();

  void trim_to(size_t target) {
    while (held > target && !free_blocks.empty()) {
      auto it = std::prev(free_blocks.end());
      std::free(it->second.back());
      it->second.pop_back();
      held -= it->first;
      if (it->second.empty()) free_blocks.erase(it);
    }
  }
};

std::atomic<size_t> live{0}, peak{0};

void count_allocation(size_t bytes) {
  size_t now = live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  size_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {}
}

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: tensors may outlive static destructors
  return *c;
}

void* allocate_block(size_t bytes, size_t& capacity) {
  if (bytes < kCachedBytes) {
    capacity = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, capacity);
    if (!p) throw std::bad_alloc();
    return p;
  }
  capacity = (bytes + kClass - 1) / kClass * kClass;
  {
    auto& c = cache();
    std::lock_guard lock(c.mutex);
    auto it = c.free_blocks.find(capacity);
    if (it != c.free_blocks.end()) {
      void* p = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) c.free_blocks.erase(it);
      c.held -= capacity;
      return p;
    }
  }
  void* p = std::aligned_alloc(kClass, capacity);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, capacity, MADV_HUGEPAGE);
#endif
  return p;
}

}  // namespace

void* allocate(size_t bytes, size_t& capacity) {
  void* block = allocate_block(bytes, capacity);
  count_allocation(capacity);
  return block;
}

size_t live_bytes() { return live.load(std::memory_order_relaxed); }
size_t peak_bytes() { return peak.load(std::memory_order_relaxed); }
void reset_peak() { peak.store(live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

void release(void* block, size_t capacity) {
  if (!block) return;
  live.fetch_sub(capacity, std::memory_order_relaxed);
  if (capacity < kCachedBytes) {
    std::free(block);
    return;
  }
  auto& c = cache();
  std::lock_guard lock(c.mutex);
  if (c.held + capacity > c.limit) {
    std::free(block);
    return;
  }
  c.free_blocks[capacity].push_back(block);
  c.held += capacity;
}

size_t cached_bytes() {
  auto& c = cache();
  std::lock_guard lock(c.mutex);
  return c.held;
}

void set_limit(size_t bytes) {
  auto& c = cache();
  std::lock_guard lock(c.mutex);
  c.limit = bytes;
  c.trim_to(bytes);
}

void empty() {
  auto& c = cache();
  std::lock_guard lock(c.mutex);
  c.trim_to(0);
}

}  // namespace scorch::backends::cpu::host_cache
