#pragma once
// StackOf<B>: the Stack that runs every op on backend B, and register_stack<B>(), which a stack's library calls once
// (from its register function, dyn/builtin_stacks.h) so that Dyn finds it by name. Include this only where a stack
// is compiled: it instantiates every op of B.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "scorch/dyn/registry.h"
#include "scorch/dyn/stack.h"

namespace scorch::dyn {

/// How a stack's devices read and write their argument (the text after ':' in "cuda:1").
template <class Device> struct DeviceSyntax {
  /// The device arg names ("" is the default device); throws DeviceError when it names none.
  std::function<Device(std::string_view arg)> parse;
  /// The argument that names d ("" for the default device of a stack with one device).
  std::function<std::string(const Device& d)> format;
};

/// A stack with one device (Cpu's): any argument but "" is a DeviceError.
template <class Device> DeviceSyntax<Device> single_device(std::string key) {
  return {[key](std::string_view arg) {
            if (!arg.empty()) throw_bad_device(key, arg, "the stack has one device: write \"" + key + "\"");
            return Device{};
          },
          [](const Device&) { return std::string(); }};
}
/// Devices numbered from 0 ("cuda:1"; "cuda" is device 0), D having an int `index`.
template <class Device> DeviceSyntax<Device> indexed_devices(std::string key) {
  return {[key](std::string_view arg) {
            Device d{};
            d.index = parse_device_index(key, arg);
            return d;
          },
          [](const Device& d) { return std::to_string(d.index); }};
}

/// Backend B behind the stack interface, under key.
template <class B> class StackOf final : public OpTableOf<Stack, B> {
 public:
  StackOf(std::string key, DeviceSyntax<typename B::Device> syntax, std::function<std::string()> unavailable)
      : key_(std::move(key)), syntax_(std::move(syntax)), unavailable_(std::move(unavailable)) {}
  const std::string& key() const override { return key_; }
  std::string backend_name() const override { return B::name(); }
  DynDevice device(std::string_view arg) const override {
    return DynDevice(this, std::make_shared<const typename B::Device>(syntax_.parse(arg)));
  }
  std::string device_arg(const DynDevice& d) const override { return syntax_.format(d.as<typename B::Device>()); }
  bool same_device(const DynDevice& a, const DynDevice& b) const override {
    return a.as<typename B::Device>() == b.as<typename B::Device>();
  }
  std::string unavailable() const override { return unavailable_ ? unavailable_() : std::string(); }
  void seed(uint64_t s) const override { B::seed(s); }
  void sync(const DynDevice& d) const override { B::sync(d.as<typename B::Device>()); }

 private:
  std::string key_;
  DeviceSyntax<typename B::Device> syntax_;
  std::function<std::string()> unavailable_;
};

/// Registers backend B as the stack named key (its devices read and written by syntax; unavailable says why it
/// cannot run here, empty: it always can); once per B, whichever thread calls first.
template <class B> void register_stack(const std::string& key, DeviceSyntax<typename B::Device> syntax,
                                       std::function<std::string()> unavailable = {}) {
  static std::mutex registering;
  std::lock_guard lock(registering);
  if (stack_of<B>) return;
  auto stack = std::make_unique<StackOf<B>>(key, std::move(syntax), std::move(unavailable));
  stack_of<B> = stack.get();
  add_stack(std::move(stack));
}

}  // namespace scorch::dyn
