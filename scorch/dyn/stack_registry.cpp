// The stack registry's storage, Dyn's device text and equality, and the errors Dyn's dispatch raises; what each
// stack library needs of Dyn (the registry's lookups that load the build's stacks are in dyn/dyn.cpp).
#include <charconv>
#include <mutex>

#include "scorch/dyn/dispatch.h"
#include "scorch/dyn/registry.h"

namespace scorch::dyn {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Stack>> stacks;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void add_stack(std::unique_ptr<Stack> stack) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& s : r.stacks)
    if (s->key() == stack->key())
      throw DeviceError("dyn", "a stack named \"" + stack->key() + "\" is registered twice");
  r.stacks.push_back(std::move(stack));
}

const Stack* find_registered_stack(std::string_view key) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& s : r.stacks)
    if (s->key() == key) return s.get();
  return nullptr;
}

std::vector<std::string> registered_stack_keys() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> keys;
  for (const auto& s : r.stacks) keys.push_back(s->key());
  return keys;
}

void throw_bad_device(const std::string& key, std::string_view arg, const std::string& what) {
  throw DeviceError("dyn", "stack \"" + key + "\" has no device \"" + std::string(arg) + "\": " + what);
}

int parse_device_index(const std::string& key, std::string_view arg) {
  if (arg.empty()) return 0;
  int index = 0;
  auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), index);
  if (ec != std::errc() || end != arg.data() + arg.size() || index < 0)
    throw_bad_device(key, arg, "write a device number, as in \"" + key + ":0\"");
  return index;
}

void throw_empty(const char* op) {
  throw ValueError(op, "the tensor is empty (moved from or default-constructed): assign it a value before use");
}

void throw_no_device(const char* op) {
  throw DeviceError(op, "no operand names a device to run on (pass a device or a tensor)");
}

void throw_two_stacks(const char* op, const Stack& a, const Stack& b) {
  throw DeviceError(op, "operands on two stacks: " + a.key() + " and " + b.key() + " (move one with to_device first)");
}

std::string DynDevice::to_string() const {
  std::string arg = stack_->device_arg(*this);
  const std::string& key = stack_->key();
  if (arg.empty()) return key;
  auto close = key.find('>');
  if (close == std::string::npos) return key + ":" + arg;
  return key.substr(0, close) + ":" + arg + key.substr(close);
}

bool operator==(const DynDevice& a, const DynDevice& b) { return a.stack_ == b.stack_ && a.stack_->same_device(a, b); }

}  // namespace scorch::dyn
