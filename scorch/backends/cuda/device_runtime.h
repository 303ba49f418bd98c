#pragma once
// Internal to backends/cuda: error checks, the per-device op stream and the pool's block API.
// Includes the CUDA runtime header, so only backends/cuda sources include it.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace scorch::backends::cuda {

/// Throws DeviceError "[op] CUDA <name>: <description>" unless status is cudaSuccess.
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

}  // namespace scorch::backends::cuda
