// Dyn's "vulkan" stack ("vulkan:1" is the second physical device): every op of the table on Vulkan, compiled once
// here.
#include "scorch/backends/vulkan/runtime.h"
#include "scorch/backends/vulkan/vulkan_backend.h"
#include "scorch/dyn/stack_of.h"
#include "scorch/stacks/registrations.h"

namespace scorch::dyn {
void register_stack_vulkan() {
  register_stack<Vulkan>("vulkan", indexed_devices<VulkanDevice>("vulkan"), [] {
    auto why = backends::vulkan::unavailable_reason();
    return why.empty() ? why : "no Vulkan device (" + why + ")";
  });
}
}  // namespace scorch::dyn
