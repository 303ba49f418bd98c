#pragma once
// Internal to backends/cuda: error checks, the per-device op stream and the pool's block API.
// Includes the CUDA runtime header, so only backends/cuda sources include it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace scorch::backends::cuda {

/// Throws DeviceError `"[op] CUDA <name>: <description>"` unless status is cudaSuccess.
void check(cudaError_t status, const char* op);
/// Throws DeviceError if the last kernel launch failed.
void check_launch(const char* op);
/// The stream every op on device is queued on (non-blocking, created once); makes device current
/// (remembered per thread: code that calls cudaSetDevice itself must go through stream() again).
cudaStream_t stream(int device);
/// Number of multiprocessors of device.
int multiprocessors(int device);
/// Throws DeviceError naming op unless device exists.
void check_device(int device, const char* op);

/// When profiling, records the end of op's work on the current device's stream.
void profile_mark(const char* op);

/// A block of at least bytes on device from the caching pool; capacity receives its size class.
void* pool_allocate(size_t bytes, int device, size_t& capacity);
/// Returns a block (of size class capacity) to the pool; stream order keeps later reuse safe.
void pool_free(void* ptr, size_t capacity, int device);
/// Blocks reserved for one captured graph (freed ones wait for its replays, not for other tensors).
struct PrivatePool;
/// A fresh private pool serving device's allocations until end_private_pool; its blocks go back to the shared pool
/// when the last reference is dropped (those still in use, when freed).
std::shared_ptr<PrivatePool> begin_private_pool(int device);
/// Serves device's allocations from the shared pool again.
void end_private_pool(int device);
/// True while device's stream is being captured into a graph (checks that wait on the device are skipped).
bool is_capturing(cudaStream_t stream);
struct LaunchCounts;
/// The kernels, child graphs and copies of graph.
LaunchCounts count_launches(cudaGraph_t graph);

}  // namespace scorch::backends::cuda
