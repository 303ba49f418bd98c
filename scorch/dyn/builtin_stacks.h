#pragma once
// The stacks this build compiles (dyn_builtin_stacks.cpp, written by CMake from the enabled backends).

namespace scorch::dyn {
/// Registers every stack of the build; the registry calls it once, on first use.
void register_builtin_stacks();
}  // namespace scorch::dyn
