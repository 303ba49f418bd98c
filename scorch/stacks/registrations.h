#pragma once
#include <string>

// Each stack library's registration with Dyn (stacks/<stack>/dyn.cpp); dyn_builtin_stacks.cpp calls those the build
// has.

namespace scorch::dyn {
/// "cpu" and "reference" (scorch_cpu).
void register_stack_cpu();
/// `"fusion<cpu>"` (scorch_fusion_cpu).
void register_stack_fusion_cpu();
/// "cuda" (scorch_cuda).
void register_stack_cuda();
/// Why Cuda cannot run here ("" when a device is visible), for the cuda stacks' registrations.
std::string cuda_unavailable();
/// `"fusion<cuda>"` (scorch_fusion_cuda).
void register_stack_fusion_cuda();
/// "vulkan" (scorch_vulkan).
void register_stack_vulkan();
/// "libtorch" (scorch_libtorch).
void register_stack_libtorch();
/// "remote" (scorch_remote).
void register_stack_remote();
}  // namespace scorch::dyn
