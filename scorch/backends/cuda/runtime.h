#pragma once
// The Cuda backend's runtime controls: devices, synchronization, the caching memory pool and the
// kernel-selection switches. No CUDA header needed; every call is valid without a GPU (counts are 0).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "scorch/backends/common/pool_stats.h"

namespace scorch::backends::cuda {

/// Number of CUDA devices visible (0 without a driver or GPU).
int device_count();
/// True when at least one CUDA device can run kernels.
bool is_available();
/// Blocks until every op queued on device's stream has finished; rethrows a pending device fault.
void synchronize(int device);
/// The kernels fn queues on device's stream, counted by capturing the stream into a CUDA graph that is never
/// launched (for tests: nothing fn queues runs, so what it writes holds no values; fn must not wait on the
/// device). Rethrows what fn throws once the capture has ended.
size_t count_kernels(int device, const std::function<void()>& fn);
/// What a graph holds: kernels, child graphs (a replayed CudaGraph queued inside a capture) and copies/memsets.
struct LaunchCounts {
  size_t kernels = 0, graphs = 0, copies = 0;
};
/// Like count_kernels, counting every kind of work fn queues.
LaunchCounts count_launches(int device, const std::function<void()>& fn);

/// What the caching pool holds on one device (bytes).
using PoolStats = backends::PoolStats;
/// The pool's counters for device.
PoolStats pool_stats(int device = 0);
/// Restarts peak_in_use and peak_reserved from the current values.
void reset_peak(int device = 0);
/// Frees every cached (unused) block of device back to the driver.
void release_cached(int device = 0);
/// Caps the bytes the pool keeps cached per device (default: SCORCH_CUDA_POOL_CAP or unlimited);
/// frees cached blocks beyond it at once.
void set_cache_cap(size_t bytes);
/// The current cache cap.
size_t cache_cap();

/// How f32 matmuls run. Exact: f32 FMA (the default). Tf32x3: each operand split into two TF32 values and one TF32
/// tensor-core product summing big·small + small·big, then big·big, in f32 (errors within a few times
/// f32's, 400× below one TF32 pass's; 1.15 to 1.8× faster on large products, which alone take it; an inf input may
/// give NaN where Exact gives ±inf). Tf32: one TF32 pass (10-bit mantissas).
enum class F32Matmul { Exact, Tf32x3, Tf32 };
/// Sets the f32 matmul mode (default SCORCH_CUDA_F32_MATMUL=exact|tf32x3|tf32, else Tf32 when SCORCH_CUDA_TF32=1,
/// else Exact).
void set_f32_matmul(F32Matmul mode);
F32Matmul f32_matmul();
/// Allows one-pass TF32 Tensor Cores for f32 matmul and convolution (set_f32_matmul(Tf32); false: Exact), like
/// torch.backends.cuda.matmul.allow_tf32.
void set_allow_tf32(bool allow);
/// True when f32_matmul() is Tf32.
bool allow_tf32();

/// Benchmarks candidate kernels once per (op, shape, device) and caches the choice in memory and
/// on disk (default on; off with SCORCH_AUTOTUNE=0 or set_autotune(false): heuristics only).
void set_autotune(bool enabled);
bool autotune_enabled();
/// The on-disk autotune cache file (SCORCH_AUTOTUNE_CACHE, else ~/.cache/scorch/autotune-cuda.tsv).
std::string autotune_cache_path();
/// Forgets the in-memory autotune choices (the file stays); the next lookups reread the file.
void clear_autotune_memory();
/// Number of choices made by benchmarking (not read from cache) since start: cold-start cost.
uint64_t autotune_benchmarks_run();

/// Per-op device-time profiling (default off, or SCORCH_CUDA_PROFILE=1): an event after each op's
/// kernels attributes the device time since the previous event (idle gaps included) to that op.
void set_profiling(bool enabled);
/// The profile of device so far as lines "op  total_ms  calls", largest first; clears it.
std::string profile_report(int device = 0);

}  // namespace scorch::backends::cuda
