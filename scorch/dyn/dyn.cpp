// The registry's lookups (the build's stacks loaded on first use), devices by name, the default device, and Dyn's
// stack-wide calls.
#include "scorch/dyn/registry.h"

#include <cstdlib>
#include <mutex>

#include "scorch/dyn/builtin_stacks.h"
#include "scorch/dyn/dispatch.h"
#include "scorch/dyn/dyn.h"

namespace scorch::dyn {
namespace {

/// Registers the build's own stacks, once, before the first lookup.
void load_builtin_stacks() {
  static std::once_flag once;
  std::call_once(once, register_builtin_stacks);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string known_stacks() {
  std::string out;
  for (const auto& key : stack_keys()) out += (out.empty() ? "" : ", ") + key;
  return out;
}

DynDevice& default_device_slot() {
  static DynDevice device = [] {
    const char* env = std::getenv("SCORCH_STACK");
    std::string name = env && *env ? env : "cpu";
    return Dyn::parse(name).device;
  }();
  return device;
}

}  // namespace

const Stack* find_stack(std::string_view key) {
  load_builtin_stacks();
  return find_registered_stack(key);
}

std::vector<std::string> stack_keys() {
  load_builtin_stacks();
  return registered_stack_keys();
}

DynDevice parse_device(std::string_view name) {
  name = trim(name);
  std::string key(name);
  std::string_view arg;
  if (auto colon = name.find(':'); colon != std::string_view::npos) {
    auto close = name.find('>', colon);
    size_t end = close == std::string_view::npos ? name.size() : close;
    arg = name.substr(colon + 1, end - colon - 1);
    key = std::string(name.substr(0, colon)) + std::string(name.substr(end));
  }
  if (key.starts_with("autodiff<"))
    throw DeviceError("dyn", "\"" + std::string(name) + "\" asks for gradients: read it with Dyn::parse and train on " +
                                 "Autodiff<Dyn> with its device");
  const Stack* stack = find_stack(key);
  if (!stack)
    throw DeviceError("dyn", "no stack named \"" + key + "\" (from \"" + std::string(name) +
                                 "\"); this build has: " + known_stacks());
  return stack->device(arg);
}

void set_default_device(const DynDevice& device) { default_device_slot() = device; }

DynDevice::DynDevice() : DynDevice(default_device_slot()) {}

}  // namespace scorch::dyn

namespace scorch {

dyn::StackChoice Dyn::parse(std::string_view name) {
  name = dyn::trim(name);
  bool autodiff = name.starts_with("autodiff<") && name.ends_with(">");
  if (autodiff) name = name.substr(9, name.size() - 10);
  return {dyn::parse_device(name), autodiff};
}

void Dyn::seed(uint64_t s) {
  for (const auto& key : dyn::stack_keys()) dyn::find_stack(key)->seed(s);
}

}  // namespace scorch
