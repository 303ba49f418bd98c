#pragma once
// Vulkan and Autodiff<Vulkan>, statically: Autodiff's op groups are instantiated in the program that names the stack
// (Dyn's "vulkan" stack, compiled once in scorch_vulkan, chooses it at run time). Needs SCORCH_BUILD_VULKAN.
#include "scorch/autodiff/autodiff_impl.h"
#include "scorch/backends/vulkan/vulkan_backend.h"
