#pragma once
// The Vulkan backend's runtime controls: devices and what they support, synchronization, the caching memory pool
// and the count of ops that still run on the host. No Vulkan header needed; every call is valid without a Vulkan
// driver (device_count() is 0 and is_available() false).
#include <cstddef>
#include <cstdint>
#include <string>

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
};
WorkStats work_stats(int device = 0);

}  // namespace scorch::backends::vulkan
