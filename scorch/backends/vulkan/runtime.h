#pragma once
// The Vulkan backend's runtime controls: devices and what they support, synchronization, the caching memory pool
// and the count of ops that still run on the host. No Vulkan header needed; every call is valid without a Vulkan
// driver (device_count() is 0 and is_available() false).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scorch/backends/common/pool_stats.h"

namespace scorch::backends::vulkan {

/// Number of Vulkan physical devices that can run Scorch's shaders (0 without a loader, driver or device).
int device_count();
/// True when at least one device is usable.
bool is_available();
/// Why no device is usable ("" when one is).
std::string unavailable_reason();

/// What a device is and supports.
struct DeviceInfo {
  std::string name;            ///< the driver's device name ("NVIDIA H100 80GB HBM3", "llvmpipe (...)")
  std::string driver;          ///< driver name and version
  std::string type;            ///< "discrete", "integrated", "virtual", "cpu" or "other"
  uint32_t api_version = 0;    ///< VK_MAKE_API_VERSION of the device
  uint32_t subgroup_size = 0;  ///< invocations per subgroup
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_shared_memory = 0;   ///< bytes of workgroup (shared) memory
  uint64_t device_memory = 0;       ///< bytes of the largest device-local heap
  bool float64 = false;             ///< shaderFloat64: f64 tensors
  bool int64 = false;               ///< shaderInt64: i64 tensors (with float64: the shaders' wide variant)
  bool cooperative_matrix = false;  ///< VK_NV_cooperative_matrix or VK_KHR_cooperative_matrix is exposed
  /// f16 matmuls run on cooperative matrices (tensor cores): VK_NV_cooperative_matrix's 16×16×16 f16 · f16 + f32
  /// shape, 32-wide subgroups; off where SCORCH_VULKAN_COOPMAT=0
  bool cooperative_matrix_f16 = false;
  /// shaders add floats atomically (VK_EXT_shader_atomic_float): max pooling's gradient runs on the device
  bool float32_atomic_add = false;
};
/// device's description; throws DeviceError for an index out of range.
DeviceInfo device_info(int device);

/// Submits every queued command of device and waits for it; rethrows a device loss as DeviceError.
void synchronize(int device);

/// What the caching pool holds on one device (bytes).
using PoolStats = backends::PoolStats;
/// The pool's counters for device.
PoolStats pool_stats(int device = 0);
/// Restarts peak_in_use and peak_reserved from the current values.
void reset_peak(int device = 0);
/// Waits for the device, then frees every cached (unused) block back to the driver.
void release_cached(int device = 0);

/// Work counters of one device since start.
struct WorkStats {
  uint64_t dispatches = 0;      ///< compute dispatches recorded
  uint64_t submissions = 0;     ///< command buffers submitted (dispatches are batched into them)
  uint64_t pipelines = 0;       ///< pipelines created (one per shader and specialization)
  uint64_t host_fallbacks = 0;  ///< ops run by the Cpu kernels on copies (kernels/host_kernels.txt lists them)
  uint64_t cooperative_matrix_dispatches = 0;  ///< f16 matmuls run on cooperative matrices (tensor cores)
};
WorkStats work_stats(int device = 0);

/// Whether elementwise and reduction pipelines are specialized per op and dtype (a compiled pipeline each: the
/// fastest kernels) or, for launches of up to 65536 values, read them from push constants (a few pipelines serve
/// every op: far less compiling, slower per value). Specialized except on CPU devices (lavapipe), where compiling
/// costs more than running small launches; SCORCH_VULKAN_SPECIALIZE=0 or 1 sets the default.
void set_specialized_pipelines(bool on, int device = 0);
bool specialized_pipelines(int device = 0);
/// Turns per-shader GPU timing (profile) on or off for device; it starts on where the environment has
/// SCORCH_VULKAN_PROFILE=1. Timing brackets every dispatch with timestamps (a few microseconds each).
void set_profiling(bool enabled, int device = 0);
/// GPU time of one shader's dispatches.
struct ShaderTime {
  std::string shader;       ///< the shader variant ("map", "matmul_f32", ...); "(command buffers)": whole buffers
  uint64_t dispatches = 0;  ///< dispatches timed (command buffers for "(command buffers)")
  double milliseconds = 0;  ///< summed time from each dispatch's start to its end
};
/// Per-shader GPU time on device since start or reset_profile, slowest first, then "(command buffers)": the spans of
/// whole command buffers (the gap to the shaders' sum is barriers and idle time). Empty unless profiling was on.
std::vector<ShaderTime> profile(int device = 0);
/// Clears profile's totals.
void reset_profile(int device = 0);
/// profile's totals as lines "shader  total_ms  dispatches" (as the Cuda backend's profile_report); clears them.
std::string profile_report(int device = 0);

}  // namespace scorch::backends::vulkan
