#pragma once
// Autodiff<Vulkan>: its op groups are compiled once (autodiff/instantiate/*.cpp, built into scorch_vulkan); users
// only see declarations. Needs SCORCH_BUILD_VULKAN.
#include "scorch/autodiff/autodiff.h"
#include "scorch/backends/vulkan/vulkan_backend.h"

SCORCH_AUTODIFF_EXTERN(scorch::Vulkan);
