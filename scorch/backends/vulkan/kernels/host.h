#pragma once
// host::run: a Vulkan kernel computed by the Cpu backend's kernel of the same name over host copies of its operands
// (the kernels listed in host_kernels.txt, until each has a shader). Operands are read back (which waits for the
// device), results uploaded to the first operand's device.
#include <optional>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/backends/cpu/cpu_tensor.h"
#include "scorch/backends/vulkan/vulkan_tensor.h"
#include "scorch/core/tensor_data.h"

namespace scorch::backends::vulkan::host {

/// x's values as a Cpu tensor.
cpu::CpuTensor to_cpu(const VulkanTensor& x);
/// x's values as a Vulkan tensor on device.
VulkanTensor to_vulkan(const cpu::CpuTensor& x, VulkanDevice device);
/// Counts one host-run op on device (work_stats().host_fallbacks).
void count(VulkanDevice device);

inline cpu::CpuTensor to_host(const VulkanTensor& x) { return to_cpu(x); }
inline std::optional<cpu::CpuTensor> to_host(const std::optional<VulkanTensor>& x) {
  return x ? std::optional(to_cpu(*x)) : std::nullopt;
}
inline cpu::CpuDevice to_host(const VulkanDevice&) { return {}; }
template <class A> const A& to_host(const A& a) { return a; }

inline VulkanTensor to_device(const cpu::CpuTensor& x, VulkanDevice d) { return to_vulkan(x, d); }
inline std::optional<VulkanTensor> to_device(const std::optional<cpu::CpuTensor>& x, VulkanDevice d) {
  return x ? std::optional(to_vulkan(*x, d)) : std::nullopt;
}
template <class A, class B> auto to_device(const std::pair<A, B>& p, VulkanDevice d) {
  return std::pair(to_device(p.first, d), to_device(p.second, d));
}
inline ConvGradients<VulkanTensor> to_device(const ConvGradients<cpu::CpuTensor>& g, VulkanDevice d) {
  return {to_device(g.x, d), to_device(g.weight, d), to_device(g.bias, d)};
}
inline TensorData to_device(TensorData data, VulkanDevice) { return data; }

inline void find_device(std::optional<VulkanDevice>& found, const VulkanTensor& x) {
  if (!found && x.storage()) found = x.device();
}
inline void find_device(std::optional<VulkanDevice>& found, const std::optional<VulkanTensor>& x) {
  if (x) find_device(found, *x);
}
inline void find_device(std::optional<VulkanDevice>& found, const VulkanDevice& d) {
  if (!found) found = d;
}
template <class A> void find_device(std::optional<VulkanDevice>&, const A&) {}

/// fn (a Cpu kernel) applied to host copies of args; its result as R on the operands' device.
template <class R, class Fn, class... A> R run(const char*, Fn fn, const A&... args) {
  std::optional<VulkanDevice> device;
  (find_device(device, args), ...);
  VulkanDevice d = device.value_or(VulkanDevice{});
  count(d);
  return to_device(fn(to_host(args)...), d);
}

}  // namespace scorch::backends::vulkan::host
