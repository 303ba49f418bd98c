// The conformance suite on Vulkan and on Autodiff<Vulkan> (float inputs requiring grad): the same fixtures from
// PyTorch as the Cpu backend passes, on the first Vulkan device (lavapipe in CI). Skipped, with the reason, without
// one.
#include "require_vulkan.h"
#include "runner.h"

namespace scorch::conformance {
namespace {

SCORCH_REQUIRE_VULKAN_DEVICE("Vulkan conformance suite");

SCORCH_CONFORMANCE_SUITE(VulkanConformance, Vulkan)
SCORCH_CONFORMANCE_SUITE(AutodiffVulkanConformance, Autodiff<Vulkan>)

}  // namespace
}  // namespace scorch::conformance
