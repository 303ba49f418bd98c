#pragma once
// Runtime<B>, run_graph<B>, from_host<B> and to_host<B> for a backend B whose ops Dyn runs as one of its stacks:
// values cross as the same primitives, boxed into Dyn tensors of B's stack on the way in and unboxed on the way
// out (no copy). Included where B is compiled (cpu_bridge.cpp, cuda_bridge.cpp) and by runtime.cpp for Dyn itself.
#include <memory>
#include <type_traits>

#include "scorch/dyn/dispatch.h"
#include "scorch/dyn/dyn.h"
#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::onnx {

/// The Dyn stack that runs B's ops, registered on first use (SCORCH_ONNX_BRIDGE_ON defines it for B).
template <class B> const dyn::Stack& bridge_stack();

/// B's stack once registration (its library's register_stack_*) has run, which the first call does.
template <class B> const dyn::Stack& registered_stack(void (*registration)()) {
  static const dyn::Stack& stack = (registration(), *dyn::stack_of<B>);
  return stack;
}

namespace detail {
/// The interpreter's own entry points on Dyn (runtime.cpp).
std::vector<Value<Dyn>> run_graph_on_dyn(const Graph& g, std::map<std::string, Value<Dyn>> env, int64_t opset,
                                         const dyn::DynDevice& device);
Value<Dyn> from_host_on_dyn(const HostValue& value, const dyn::DynDevice& device);
HostValue to_host_on_dyn(const Value<Dyn>& value);
}  // namespace detail

/// Conversions between B's values and Dyn's values on B's stack.
template <class B> struct Bridge {
  static constexpr bool kIdentity = std::is_same_v<B, Dyn>;

  /// device as a Dyn device of B's stack.
  static dyn::DynDevice device(const typename B::Device& device) {
    if constexpr (kIdentity) return device;
    else return dyn::DynDevice(&bridge_stack<B>(), std::make_shared<const typename B::Device>(device));
  }

  /// v boxed as Dyn values (a sequence's or optional's elements too).
  static Value<Dyn> to_dyn(Value<B> v) {
    if constexpr (kIdentity) {
      return v;
    } else {
      using K = typename Value<B>::Kind;
      switch (v.kind()) {
        case K::Float: return Value<Dyn>::template of<Float>(box<Float>(std::move(v).template take<Float>()));
        case K::Int: return Value<Dyn>::template of<Int>(box<Int>(std::move(v).template take<Int>()));
        case K::Bool: return Value<Dyn>::template of<Bool>(box<Bool>(std::move(v).template take<Bool>()));
        default: break;
      }
      return convert_container<Dyn>(std::move(v), [](Value<B> e) { return to_dyn(std::move(e)); });
    }
  }

  /// Each value of values boxed as Dyn values, by name.
  static std::map<std::string, Value<Dyn>> to_dyn(std::map<std::string, Value<B>> values) {
    std::map<std::string, Value<Dyn>> out;
    for (auto& [name, value] : values) out.emplace(name, to_dyn(std::move(value)));
    return out;
  }
  /// Each value of values unboxed as B's values (from_dyn).
  static std::vector<Value<B>> from_dyn(std::vector<Value<Dyn>> values, const dyn::DynDevice& device) {
    std::vector<Value<B>> out;
    for (auto& v : values) out.push_back(from_dyn(std::move(v), device));
    return out;
  }

  /// v (on B's stack) unboxed as B's values; a tensor on another stack is moved to device first.
  static Value<B> from_dyn(Value<Dyn> v, const dyn::DynDevice& device) {
    if constexpr (kIdentity) {
      return v;
    } else {
      using K = typename Value<Dyn>::Kind;
      switch (v.kind()) {
        case K::Float: return Value<B>::template of<Float>(unbox<Float>(std::move(v).template take<Float>(), device));
        case K::Int: return Value<B>::template of<Int>(unbox<Int>(std::move(v).template take<Int>(), device));
        case K::Bool: return Value<B>::template of<Bool>(unbox<Bool>(std::move(v).template take<Bool>(), device));
        default: break;
      }
      return convert_container<B>(std::move(v), [&](Value<Dyn> e) { return from_dyn(std::move(e), device); });
    }
  }

 private:
  template <class Kind> static dyn::DynTensor<Kind> box(typename Kind::template Primitive<B> p) {
    bridge_stack<B>();  // registers the stack (and so dyn::stack_of<B>) before its first box
    return dyn::boxed<B, Kind>(std::move(p));
  }
  template <class Kind>
  static typename Kind::template Primitive<B> unbox(dyn::DynTensor<Kind> t, const dyn::DynDevice& device) {
    if (t.stack() != &bridge_stack<B>()) t = dyn::move_to(std::move(t), device);
    return dyn::unbox<B>(std::move(t));
  }
  /// A sequence or optional of v's elements, each converted by convert.
  template <class To, class From, class Convert> static Value<To> convert_container(Value<From> v, Convert convert) {
    using K = typename Value<From>::Kind;
    K kind = v.kind();
    DType element_dtype = v.element_dtype();
    std::vector<Value<To>> elements;
    for (auto& e : std::move(v).take_elements()) elements.push_back(convert(std::move(e)));
    if (kind == K::Sequence) return Value<To>::sequence(std::move(elements), element_dtype);
    std::optional<Value<To>> held;
    if (!elements.empty()) held = std::move(elements.front());
    return Value<To>::optional(std::move(held), element_dtype);
  }
};

template <class B> Runtime<B>::Runtime(Model model, Device device)
    : interpreter_(std::make_shared<const detail::Interpreter>(std::move(model), Bridge<B>::device(device))) {}

template <class B> std::vector<Value<B>> Runtime<B>::run_values(std::map<std::string, Value<B>> inputs) const {
  if constexpr (Bridge<B>::kIdentity) return interpreter_->run_values(std::move(inputs));
  else
    return Bridge<B>::from_dyn(interpreter_->run_values(Bridge<B>::to_dyn(std::move(inputs))), interpreter_->device());
}

template <class B> std::vector<Value<B>> run_graph(const Graph& g, std::map<std::string, Value<B>> env, int64_t opset,
                                                   const typename B::Device& device) {
  dyn::DynDevice on = Bridge<B>::device(device);
  return Bridge<B>::from_dyn(detail::run_graph_on_dyn(g, Bridge<B>::to_dyn(std::move(env)), opset, on), on);
}

template <class B> Value<B> from_host(const HostValue& value, const typename B::Device& device) {
  dyn::DynDevice on = Bridge<B>::device(device);
  return Bridge<B>::from_dyn(detail::from_host_on_dyn(value, on), on);
}

template <class B> HostValue to_host(const Value<B>& value) { return detail::to_host_on_dyn(Bridge<B>::to_dyn(value)); }

/// B's bridge (in the one source that compiles it): its stack, registered by registration, and the runtime's entry
/// points for B.
#define SCORCH_ONNX_BRIDGE_ON(B, registration)                                                  \
  template <> const dyn::Stack& bridge_stack<B>() { return registered_stack<B>(registration); } \
  SCORCH_ONNX_BRIDGE(B)

/// Instantiates the runtime's entry points for backend B.
#define SCORCH_ONNX_BRIDGE(B)                                                                         \
  template class Runtime<B>;                                                                          \
  template std::vector<Value<B>> run_graph<B>(const Graph&, std::map<std::string, Value<B>>, int64_t, \
                                              const typename B::Device&);                             \
  template Value<B> from_host<B>(const HostValue&, const typename B::Device&);                        \
  template HostValue to_host<B>(const Value<B>&);

}  // namespace scorch::onnx
