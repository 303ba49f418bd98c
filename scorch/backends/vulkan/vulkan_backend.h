#pragma once
// Vulkan: Scorch's portable GPU backend (any Vulkan 1.2 device with buffer device addresses: NVIDIA, AMD, Intel,
// mobile GPUs, and Mesa's lavapipe on a CPU). Every kind uses VulkanTensor; VulkanStridedKernelOps (generated from
// op_table.txt) binds the required ops and the generated elementwise and layout kernels to backends/vulkan/kernels;
// every other provided op runs backend/provided's composition. Ops are recorded into batched command buffers and
// return at once; reading values (into_data) waits. Only backends/vulkan sources include Vulkan headers.
#include <cstdint>
#include <string>

#include "scorch/backends/vulkan/runtime.h"
#include "scorch/backends/vulkan/vulkan_tensor.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan {

namespace kernels {
/// Restarts the random stream from seed s.
void seed(uint64_t s);
}  // namespace kernels

/// Vulkan devices through compute shaders: devices VulkanDevice{index}.
struct Vulkan : VulkanStridedKernelOps {
  using Device = VulkanDevice;
  using FloatTensor = VulkanTensor;
  using IntTensor = VulkanTensor;
  using BoolTensor = VulkanTensor;

  /// "vulkan".
  static std::string name() { return "vulkan"; }
  /// Restarts the random stream: the same seed gives the same random tensors (Philox draws, kernels/creation.cpp).
  static void seed(uint64_t s) { kernels::seed(s); }
  /// Waits until the device's queued work is done.
  static void sync(const Device& device) { synchronize(device.index); }
  /// Integer powers computed as integers (scalar_ops' IntPow: a negative exponent gives 0 but for ±1), not through
  /// f64 pow as backend/provided's default does.
  static VulkanTensor int_powi_scalar(VulkanTensor a, Scalar s) { return kernels::powi_scalar(std::move(a), s); }
  /// Softmax and log-softmax in one dispatch (kernels/softmax.cpp), not backend/provided's five ops.
  static VulkanTensor float_softmax(VulkanTensor x, size_t dim) { return kernels::softmax(std::move(x), dim); }
  static VulkanTensor float_log_softmax(VulkanTensor x, size_t dim) { return kernels::log_softmax(std::move(x), dim); }
};

}  // namespace scorch::backends::vulkan

namespace scorch {
using backends::vulkan::Vulkan;
using backends::vulkan::VulkanDevice;
}  // namespace scorch
