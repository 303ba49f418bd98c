#pragma once
// Vulkan: Scorch's portable GPU backend (any Vulkan 1.2 device with buffer device addresses: NVIDIA, AMD, Intel,
// mobile GPUs, and Mesa's lavapipe on a CPU). Every kind uses VulkanTensor; VulkanStridedKernelOps (generated from
// op_table.txt) binds the required ops and the generated elementwise and layout kernels to backends/vulkan/kernels;
// every other provided op runs backend/provided's composition. Ops are recorded into batched command buffers and
// return at once; reading values (into_data) waits. Only backends/vulkan sources include Vulkan headers.
#include <cstdint>
#include <string>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/backend/provided/optim_defaults.h"

#include "scorch/backends/vulkan/runtime.h"
#include "scorch/backends/vulkan/vulkan_tensor.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan {

namespace kernels {
/// Restarts the random stream from seed s.
void seed(uint64_t s);
/// Adam/AdamW steps of several parameters in one dispatch per dtype (kernels/optim.cpp, optim.comp).
std::vector<AdamUpdate<VulkanTensor>> adam_update_many(std::vector<VulkanTensor> params,
                                                       std::vector<VulkanTensor> grads,
                                                       std::vector<VulkanTensor> moments_1,
                                                       std::vector<VulkanTensor> moments_2, const AdamStep& step);
/// SGD steps of several parameters in one dispatch per dtype; velocities empty (first step) or one per parameter.
std::vector<SgdUpdate<VulkanTensor>> sgd_update_many(std::vector<VulkanTensor> params, std::vector<VulkanTensor> grads,
                                                     std::vector<VulkanTensor> velocities, const SgdStep& step);
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
  /// The Adam/AdamW step in one dispatch (kernels/optim.cpp) in place of backend/provided's ~16 per parameter.
  static AdamUpdate<VulkanTensor> module_adam_update(VulkanTensor param, VulkanTensor grad, VulkanTensor moment_1,
                                                     VulkanTensor moment_2, double lr, double beta_1, double beta_2,
                                                     double epsilon, double weight_decay, bool decoupled, double step) {
    return provided::adam_update_as_list<VulkanTensor>(kernels::adam_update_many, std::move(param), std::move(grad),
                                                       std::move(moment_1), std::move(moment_2),
                                                       {lr, beta_1, beta_2, epsilon, weight_decay, decoupled, step});
  }
  /// The multi-tensor step: one dispatch per dtype for every parameter of a model (up to 268M values each).
  static std::vector<AdamUpdate<VulkanTensor>> module_adam_update_many(std::vector<VulkanTensor> params,
                                                                       std::vector<VulkanTensor> grads,
                                                                       std::vector<VulkanTensor> moments_1,
                                                                       std::vector<VulkanTensor> moments_2,
                                                                       const AdamStep& step) {
    return kernels::adam_update_many(std::move(params), std::move(grads), std::move(moments_1), std::move(moments_2),
                                     step);
  }
  /// The multi-tensor SGD step (momentum, dampening, nesterov, weight decay) in one dispatch per dtype.
  static std::vector<SgdUpdate<VulkanTensor>> module_sgd_update_many(std::vector<VulkanTensor> params,
                                                                     std::vector<VulkanTensor> grads,
                                                                     std::vector<VulkanTensor> velocities,
                                                                     const SgdStep& step) {
    return kernels::sgd_update_many(std::move(params), std::move(grads), std::move(velocities), step);
  }
};

}  // namespace scorch::backends::vulkan

namespace scorch {
using backends::vulkan::Vulkan;
using backends::vulkan::VulkanDevice;
}  // namespace scorch
