// The caching device-memory pool: blocks are rounded up to size classes (quarter steps between
// powers of two, at least 512 bytes) and freed blocks wait on a per-class list for reuse. One pool
// per device behind one mutex (no per-thread caches). Every op runs on its device's single stream,
// so a block freed after queuing work and handed out again is only touched after that work.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scorch/backends/cuda/cuda_tensor.h"
#include "scorch/backends/cuda/device_runtime.h"
#include "scorch/backends/cuda/runtime.h"
#include "scorch/core/error.h"

namespace scorch::backends::cuda {
namespace {

size_t size_class(size_t bytes) {
  if (bytes <= 512) return 512;
  size_t top = size_t{1} << (63 - __builtin_clzll(bytes - 1));  // highest power of two below bytes
  size_t step = std::max<size_t>(top / 4, 512);
  return (bytes + step - 1) / step * step;
}

size_t cap_from_env() {
  const char* v = std::getenv("SCORCH_CUDA_POOL_CAP");
  if (!v || !*v) return std::numeric_limits<size_t>::max();
  return static_cast<size_t>(std::strtoull(v, nullptr, 10));
}

using FreeLists = std::unordered_map<size_t, std::vector<void*>>;

struct DevicePool {
  FreeLists free_blocks;
  PoolStats stats;
  PrivatePool* active = nullptr;  // serves every allocation while a graph is captured
  size_t private_cached = 0;      // of stats.cached, blocks waiting in graphs' private lists (never trimmed)
  size_t shared_cached() const { return stats.cached - private_cached; }
};

struct Pool {
  std::mutex mutex;
  std::vector<DevicePool> devices;
  std::unordered_map<void*, PrivatePool*> owner;  // blocks of live private pools
  size_t cap = cap_from_env();
  DevicePool& at(int device) {
    if (devices.size() <= static_cast<size_t>(device)) devices.resize(static_cast<size_t>(device) + 1);
    return devices[static_cast<size_t>(device)];
  }
};

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: tensors may be freed during static destruction
  return *p;
}

void note_peak(PoolStats& s) {
  s.peak_in_use = std::max(s.peak_in_use, s.in_use);
  s.peak_reserved = std::max(s.peak_reserved, s.in_use + s.cached);
}

// Frees cached blocks of d (largest classes first) until at most keep bytes stay cached.
void trim(DevicePool& d, int device, size_t keep) {
  if (d.shared_cached() <= keep) return;
  std::vector<size_t> classes;
  for (auto& [c, list] : d.free_blocks)
    if (!list.empty()) classes.push_back(c);
  std::sort(classes.rbegin(), classes.rend());
  int previous = device;
  cudaGetDevice(&previous);
  cudaSetDevice(device);
  for (size_t c : classes) {
    auto& list = d.free_blocks[c];
    while (!list.empty() && d.shared_cached() > keep) {
      cudaFree(list.back());
      list.pop_back();
      d.stats.cached -= c;
    }
  }
  cudaSetDevice(previous);  // stream() remembers the current device per thread
}

}  // namespace

/// Blocks kept for one captured graph: handed out only while it is active, freed into its own lists.
struct PrivatePool {
  int device = 0;
  FreeLists free_blocks;
  std::unordered_set<void*> owned;
  ~PrivatePool();
};

PrivatePool::~PrivatePool() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  DevicePool& d = p.at(device);
  if (d.active == this) d.active = nullptr;
  for (auto& [capacity, list] : free_blocks)
    for (void* ptr : list) {
      d.free_blocks[capacity].push_back(ptr);  // already counted as cached
      d.private_cached -= capacity;
    }
  for (void* ptr : owned) p.owner.erase(ptr);  // blocks still in use return to the shared lists when freed
}

std::shared_ptr<PrivatePool> begin_private_pool(int device) {
  auto pool_ptr = std::make_shared<PrivatePool>();
  pool_ptr->device = device;
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  if (p.at(device).active) throw DeviceError("cuda.graph", "a graph is already being captured on this device");
  p.at(device).active = pool_ptr.get();
  return pool_ptr;
}

void end_private_pool(int device) {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  p.at(device).active = nullptr;
}

namespace {
// A block of class capacity from the active private pool's list or the shared list (adopted by the private pool).
void* reuse_block(DevicePool& d, size_t capacity) {
  std::vector<void*>* list = nullptr;
  if (d.active && !d.active->free_blocks[capacity].empty()) {
    list = &d.active->free_blocks[capacity];
    d.private_cached -= capacity;
  } else if (!d.free_blocks[capacity].empty()) {
    list = &d.free_blocks[capacity];
  }
  if (!list) return nullptr;
  void* ptr = list->back();
  list->pop_back();
  d.stats.cached -= capacity;
  return ptr;
}
void adopt(Pool& p, DevicePool& d, void* ptr) {
  if (!d.active) return;
  d.active->owned.insert(ptr);
  p.owner[ptr] = d.active;
}
}  // namespace

void* pool_allocate(size_t bytes, int device, size_t& capacity) {
  capacity = size_class(bytes);
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  DevicePool& d = p.at(device);
  ++d.stats.allocations;
  if (void* ptr = reuse_block(d, capacity)) {
    adopt(p, d, ptr);
    d.stats.in_use += capacity;
    ++d.stats.cache_hits;
    note_peak(d.stats);
    return ptr;
  }
  stream(device);  // sets the device current
  void* ptr = nullptr;
  cudaError_t status = cudaMalloc(&ptr, capacity);
  if (status == cudaErrorMemoryAllocation && !d.active) {  // give the cache back and try once (not while capturing)
    cudaGetLastError();
    cudaDeviceSynchronize();
    trim(d, device, 0);
    status = cudaMalloc(&ptr, capacity);
  }
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError("cuda.alloc", "cannot allocate " + std::to_string(capacity) + " bytes on Cuda(" +
                                        std::to_string(device) + ") (" + std::to_string(d.stats.in_use) +
                                        " bytes in use by tensors): " + cudaGetErrorString(status));
  }
  ++d.stats.device_mallocs;
  adopt(p, d, ptr);
  d.stats.in_use += capacity;
  note_peak(d.stats);
  return ptr;
}

void pool_free(void* ptr, size_t capacity, int device) {
  if (!ptr) return;
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  DevicePool& d = p.at(device);
  d.stats.in_use -= capacity;
  d.stats.cached += capacity;
  if (!p.owner.empty()) {
    auto it = p.owner.find(ptr);
    if (it != p.owner.end()) {
      it->second->free_blocks[capacity].push_back(ptr);  // kept for its graph's next replay
      d.private_cached += capacity;
      return;
    }
  }
  d.free_blocks[capacity].push_back(ptr);
  if (d.shared_cached() > p.cap) trim(d, device, p.cap);
}

PoolStats pool_stats(int device) {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  return p.at(device).stats;
}

void reset_peak(int device) {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  PoolStats& s = p.at(device).stats;
  s.peak_in_use = s.in_use;
  s.peak_reserved = s.in_use + s.cached;
}

void release_cached(int device) {
  if (device >= device_count()) return;
  synchronize(device);
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  trim(p.at(device), device, 0);
}

void set_cache_cap(size_t bytes) {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  p.cap = bytes;
  for (size_t i = 0; i < p.devices.size(); ++i) trim(p.devices[i], static_cast<int>(i), bytes);
}

size_t cache_cap() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  return p.cap;
}

CudaStorage::CudaStorage(size_t bytes, int device) : bytes_(bytes), device_(device) {
  data_ = static_cast<std::byte*>(pool_allocate(std::max<size_t>(bytes, 1), device, capacity_));
}

CudaStorage::~CudaStorage() { pool_free(data_, capacity_, device_); }

}  // namespace scorch::backends::cuda
