#pragma once
// Shared by the Cuda backend's tests: skip (with a message) where no GPU is visible.
#include <gtest/gtest.h>

#include <scorch/stacks/cuda/autodiff.h>
#include <scorch/scorch.hpp>

/// Skips the current test unless a CUDA device can run kernels.
#define SCORCH_REQUIRE_CUDA() \
  if (!::scorch::backends::cuda::is_available()) GTEST_SKIP() << "no CUDA device visible: Cuda backend test skipped"
