#pragma once
// Dyn: one backend type whose devices name a stack chosen at run time ("cpu", "fusion<cpu>", "cuda:0",
// "fusion<cuda:0>", "vulkan:0", "libtorch", "remote:tcp://host:7878"), as Burn's dispatch backend. Every op runs on
// the stack holding its operands through one virtual call (the stack's ops are compiled once, in its library);
// Autodiff<Dyn> trains on any of them. Programs, tests and tools that choose a backend by name use it; the static
// stacks (Autodiff<Cpu>, ...) stay for programs that know theirs at compile time.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scorch/dyn/registry.h"
#include "scorch/gen/dyn_ops.h"

namespace scorch::dyn {
/// A stack name read by Dyn::parse: the device, and whether `"autodiff<...>"` asked for gradients.
struct StackChoice {
  DynDevice device;
  bool autodiff = false;
};
}  // namespace scorch::dyn

namespace scorch {

/// The backend whose stack is chosen at run time, by device.
struct Dyn : dyn::GeneratedOps {
  using FloatTensor = dyn::DynTensor<Float>;
  using IntTensor = dyn::DynTensor<Int>;
  using BoolTensor = dyn::DynTensor<Bool>;
  using Device = dyn::DynDevice;

  /// "dyn".
  static std::string name() { return "dyn"; }
  /// The device name names ("cpu", "cuda:1", `"fusion<cpu>"`); a DeviceError listing the stacks otherwise.
  static Device device(std::string_view name) { return dyn::parse_device(name); }
  /// name read as a stack choice: `"autodiff<fusion<cpu>>"` is fusion<cpu>'s device with autodiff set.
  static dyn::StackChoice parse(std::string_view name);
  /// Makes d the device Device{} names from now on (the default is $SCORCH_STACK, else "cpu").
  static void set_default_device(const Device& d) { dyn::set_default_device(d); }
  /// The stacks this program can run on (their keys: "cpu", `"fusion<cpu>"`, "cuda", ...).
  static std::vector<std::string> stacks() { return dyn::stack_keys(); }
  /// Seeds every registered stack.
  static void seed(uint64_t s);
  /// Waits for d's stack.
  static void sync(const Device& d) { d.stack().sync(d); }
};

}  // namespace scorch
