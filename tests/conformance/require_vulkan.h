#pragma once
// Registers a GoogleTest environment that skips the whole binary, saying why, where no Vulkan device is usable.
#include <gtest/gtest.h>

#include <scorch/backends/vulkan/runtime.h>

namespace scorch::conformance {

class RequireVulkanDevice : public ::testing::Environment {
 public:
  explicit RequireVulkanDevice(const char* suite) : suite_(suite) {}
  void SetUp() override {
    if (!backends::vulkan::is_available())
      GTEST_SKIP() << "no Vulkan device (" << backends::vulkan::unavailable_reason() << "): the " << suite_
                   << " is skipped";
  }

 private:
  const char* suite_;
};

}  // namespace scorch::conformance

/// Skips this test binary (named suite in the message) without a Vulkan device.
#define SCORCH_REQUIRE_VULKAN_DEVICE(suite)                             \
  [[maybe_unused]] ::testing::Environment* const kRequireVulkanDevice = \
      ::testing::AddGlobalTestEnvironment(new ::scorch::conformance::RequireVulkanDevice(suite))
