#pragma once
// How Dyn runs an op (scorch/gen/dyn_ops.h): place() finds the stack holding the operands (a DeviceError naming both
// when they are on two, a ValueError for an empty tensor), move_to() moves a tensor between stacks through its values.
#include <optional>
#include <utility>
#include <vector>

#include "scorch/core/tensor_data.h"
#include "scorch/dyn/stack.h"

namespace scorch::dyn {

/// Throws the DeviceError of an op whose operands are on stacks a and b.
[[noreturn]] void throw_two_stacks(const char* op, const Stack& a, const Stack& b);

/// The stack an op's operands are on, found operand by operand.
struct Placement {
  const char* op;
  const Stack* stack = nullptr;

  void note(const Stack* s) {
    if (!stack) stack = s;
    else if (stack != s) throw_two_stacks(op, *stack, *s);
  }
  template <class Kind> void note(const DynTensor<Kind>& t) {
    if (!t.stack()) throw_empty(op);
    note(t.stack());
  }
  void note(const DynDevice& d) { note(&d.stack()); }
  template <class T> void note(const std::optional<T>& t) {
    if (t) note(*t);
  }
  template <class T> void note(const std::vector<T>& list) {
    for (const T& t : list) note(t);
  }
  template <class A> void note(const A&) requires(!operand::kWrapped<A>) {}
};

/// Throws the DeviceError of an op whose operands name no device.
[[noreturn]] void throw_no_device(const char* op);

/// The stack holding op's operands; a DeviceError when they are on two or name none.
template <class... A> const Stack& place(const char* op, const A&... operands) {
  Placement p{op};
  (p.note(operands), ...);
  if (!p.stack) throw_no_device(op);
  return *p.stack;
}

/// x on device: the stack's to_device when x is on device's stack, else x's values read there and written on
/// device's stack.
template <class Kind> DynTensor<Kind> move_to(DynTensor<Kind> x, const DynDevice& device) {
  if (!x.stack()) throw_empty("to_device");
  const Stack& to = device.stack();
  if constexpr (std::is_same_v<Kind, Float>) {
    if (x.stack() == &to) return to.float_to_device(std::move(x), device);
    return to.float_from_data(x.stack()->float_into_data(std::move(x)), device);
  } else if constexpr (std::is_same_v<Kind, Int>) {
    if (x.stack() == &to) return to.int_to_device(std::move(x), device);
    return to.int_from_data(x.stack()->int_into_data(std::move(x)), device);
  } else {
    if (x.stack() == &to) return to.bool_to_device(std::move(x), device);
    return to.bool_from_data(x.stack()->bool_into_data(std::move(x)), device);
  }
}

}  // namespace scorch::dyn
