#pragma once
// Skips the whole test binary, saying why, where no Vulkan device is usable.
#include <scorch/backends/vulkan/runtime.h>

#include "require_device.h"

/// Skips this test binary (named suite in the message) without a Vulkan device.
#define SCORCH_REQUIRE_VULKAN_DEVICE(suite)                                                    \
  [[maybe_unused]] ::testing::Environment* const kRequireVulkanDevice =                        \
      ::testing::AddGlobalTestEnvironment(new ::scorch::conformance::RequireDevice(suite, [] { \
        auto why = ::scorch::backends::vulkan::unavailable_reason();                           \
        return why.empty() ? why : "no Vulkan device (" + why + ")";                           \
      }))
