#pragma once
// The stacks Dyn can run on, by name. Each stack's library registers its stack (register_stack<B>, dyn/stack_of.h)
// when the registry is first used (dyn/builtin_stacks.cpp lists the stacks this build has); programs and tests may
// add their own. A device name is a stack's key with its device argument after ':' ("cuda:1", "fusion<cuda:0>",
// "remote:tcp://host:7878"); "autodiff<...>" around it asks for Autodiff<Dyn> (dyn/dyn.h: Dyn::parse).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scorch/dyn/dyn_tensor.h"

namespace scorch::dyn {

/// Adds stack to the registry (a DeviceError when its key is taken); the registry owns it for the program's life.
void add_stack(std::unique_ptr<Stack> stack);
/// The stack registered under key, or null (the build's stacks not loaded: find_stack loads them).
const Stack* find_registered_stack(std::string_view key);
/// The keys registered so far (the build's stacks not loaded: stack_keys loads them).
std::vector<std::string> registered_stack_keys();
/// The stack registered under key, or null.
const Stack* find_stack(std::string_view key);
/// The keys of every registered stack, in registration order.
std::vector<std::string> stack_keys();
/// The device that name names ("cpu", "cuda:1", `"fusion<cpu>"`); a DeviceError listing the registered stacks when
/// no stack has that key, or the stack's own error when it has no such device.
DynDevice parse_device(std::string_view name);
/// The device a default-constructed DynDevice names from now on (set it before tensors are made, from one thread).
void set_default_device(const DynDevice& device);
/// Throws the DeviceError for a device argument a stack does not have.
[[noreturn]] void throw_bad_device(const std::string& key, std::string_view arg, const std::string& what);
/// The device number in arg ("" is 0); a DeviceError naming key and arg when it is not a number.
int parse_device_index(const std::string& key, std::string_view arg);

}  // namespace scorch::dyn
