#pragma once
// Dyn's device and primitives: a device of a stack registered at run time (scorch/dyn/registry.h), and a tensor of
// that stack's backend, boxed. The box is reference counted; an op that receives the only reference moves the
// backend's primitive out, so in-place reuse works through Dyn as it does on the static stack.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "scorch/backend/kind.h"
#include "scorch/backend/operand_map.h"
#include "scorch/core/error.h"
#include "scorch/core/shape.h"

namespace scorch::dyn {

class Stack;

/// A device of a registered stack: the stack and its backend's device, boxed.
class DynDevice {
 public:
  /// The default device: the one set_default_device chose, else $SCORCH_STACK's, else "cpu".
  DynDevice();
  /// stack's backend device, boxed (stack is never null).
  DynDevice(const Stack* stack, std::shared_ptr<const void> device) : stack_(stack), device_(std::move(device)) {}
  /// The stack this device belongs to.
  const Stack& stack() const { return *stack_; }
  /// The backend's device (D must be the stack backend's Device type).
  template <class D> const D& as() const { return *static_cast<const D*>(device_.get()); }
  /// The device as Dyn::device() reads it: "cpu", "cuda:1", `"fusion<cuda:0>"`, "remote:tcp://host:7878".
  std::string to_string() const;
  friend bool operator==(const DynDevice& a, const DynDevice& b);

 private:
  const Stack* stack_;
  std::shared_ptr<const void> device_;
};

/// A backend primitive behind a type-erased handle.
struct Box {
  virtual ~Box() = default;
  virtual Shape shape() const = 0;
  virtual DType dtype() const = 0;
  virtual DynDevice device() const = 0;
};

/// Throws the error an op on an empty (moved-from or default-constructed) Dyn tensor gets.
[[noreturn]] void throw_empty(const char* op);

/// A tensor of kind Kind on some registered stack: the stack and its backend's primitive, boxed.
template <class Kind> class DynTensor {
 public:
  /// An empty tensor, to be assigned (Autodiff keeps such placeholders); any op on it throws ValueError naming the op.
  DynTensor() = default;
  DynTensor(const Stack* stack, std::shared_ptr<Box> box) : stack_(stack), box_(std::move(box)) {}

  /// The shape; an empty tensor's is Shape{} (as a backend's default-constructed primitive's), and any op on it throws.
  Shape shape() const { return box_ ? box_->shape() : Shape{}; }
  /// The dtype; an empty tensor's is Kind's default.
  DType dtype() const { return box_ ? box_->dtype() : Kind::default_dtype; }
  /// The device; an empty tensor's is the default device.
  DynDevice device() const { return box_ ? box_->device() : DynDevice(); }
  /// The stack holding the tensor; null when the tensor is empty.
  const Stack* stack() const { return stack_; }
  /// The box (for the stack's ops); null when the tensor is empty.
  std::shared_ptr<Box>& boxed() { return box_; }
  const std::shared_ptr<Box>& boxed() const { return box_; }

 private:
  const Stack* stack_ = nullptr;
  std::shared_ptr<Box> box_;
};

/// Backend B's primitive P in a box.
template <class B, class P> struct BoxOf final : Box {
  explicit BoxOf(P p) : value(std::move(p)) {}
  Shape shape() const override { return Shape(value.shape()); }
  DType dtype() const override { return DType(value.dtype()); }
  DynDevice device() const override;
  P value;
};

/// Backend B as operand::take and operand::Wrap name the backend that runs a Dyn op.
template <class B> struct On { using Backend = B; };

/// The stack registered for backend B (set once, by `register_stack<B>`).
template <class B> inline const Stack* stack_of = nullptr;

/// x's primitive as backend B's: moved out when x holds the only reference, else shared.
template <class B, class Kind> typename Kind::template Primitive<B> unbox(DynTensor<Kind>&& x) {
  using P = typename Kind::template Primitive<B>;
  if (!x.boxed()) throw_empty("dyn");
  auto& box = static_cast<BoxOf<B, P>&>(*x.boxed());
  if (x.boxed().use_count() == 1) return std::move(box.value);
  return box.value;
}
template <class B, class Kind> typename Kind::template Primitive<B> unbox(const DynTensor<Kind>& x) {
  using P = typename Kind::template Primitive<B>;
  if (!x.boxed()) throw_empty("dyn");
  return static_cast<const BoxOf<B, P>&>(*x.boxed()).value;
}

/// p, a primitive of backend B, as a Dyn tensor of B's stack (registered: `stack_of<B>` is set).
template <class B, class Kind> DynTensor<Kind> boxed(typename Kind::template Primitive<B> p) {
  using P = typename Kind::template Primitive<B>;
  return DynTensor<Kind>(stack_of<B>, std::make_shared<BoxOf<B, P>>(std::move(p)));
}

template <class B, class P> DynDevice BoxOf<B, P>::device() const {
  return DynDevice(stack_of<B>, std::make_shared<const typename B::Device>(value.device()));
}

}  // namespace scorch::dyn

namespace scorch::operand {
/// A Dyn tensor as the primitive of the backend that runs the op.
template <class Kind> struct Operand<dyn::DynTensor<Kind>> {
  static constexpr bool wrapped = true;
  template <class At> static auto take(dyn::DynTensor<Kind>&& t) {
    return dyn::unbox<typename At::Backend>(std::move(t));
  }
  template <class At> static auto take(dyn::DynTensor<Kind>& t) { return dyn::unbox<typename At::Backend>(t); }
  template <class At> static auto take(const dyn::DynTensor<Kind>& t) { return dyn::unbox<typename At::Backend>(t); }
};
/// A Dyn device as the device of the backend that runs the op.
template <> struct Operand<dyn::DynDevice> {
  static constexpr bool wrapped = true;
  template <class At> static auto take(const dyn::DynDevice& d) {
    return d.template as<typename At::Backend::Device>();
  }
};
/// The primitive of the backend that ran the op, boxed as a Dyn tensor of its stack.
template <class Kind> struct Wrap<dyn::DynTensor<Kind>> {
  template <class At, class A> static dyn::DynTensor<Kind> from(A&& a) {
    using B = typename At::Backend;
    using P = typename Kind::template Primitive<B>;
    return dyn::boxed<B, Kind>(P(std::forward<A>(a)));
  }
};
}  // namespace scorch::operand
