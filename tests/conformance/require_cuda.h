#pragma once
// Registers a GoogleTest environment that skips the whole binary, saying so, where no CUDA device is visible.
#include <gtest/gtest.h>

#include <scorch/backends/cuda/runtime.h>

namespace scorch::conformance {

class RequireCudaDevice : public ::testing::Environment {
 public:
  explicit RequireCudaDevice(const char* suite) : suite_(suite) {}
  void SetUp() override {
    if (!backends::cuda::is_available()) GTEST_SKIP() << "no CUDA device visible: the " << suite_ << " is skipped";
  }

 private:
  const char* suite_;
};

}  // namespace scorch::conformance

/// Skips this test binary (named suite in the message) without a CUDA device.
#define SCORCH_REQUIRE_CUDA_DEVICE(suite)                             \
  [[maybe_unused]] ::testing::Environment* const kRequireCudaDevice = \
      ::testing::AddGlobalTestEnvironment(new ::scorch::conformance::RequireCudaDevice(suite))
