#pragma once
// Skips the whole test binary, saying so, where no CUDA device is visible.
#include <scorch/backends/cuda/runtime.h>

#include "require_device.h"

/// Skips this test binary (named suite in the message) without a CUDA device.
#define SCORCH_REQUIRE_CUDA_DEVICE(suite)                                           \
  [[maybe_unused]] ::testing::Environment* const kRequireCudaDevice =               \
      ::testing::AddGlobalTestEnvironment(new ::scorch::conformance::RequireDevice( \
          suite, [] { return ::scorch::backends::cuda::is_available() ? std::string() : "no CUDA device visible"; }))
