#pragma once
// How Router<Bs...> runs an op (scorch/gen/router_ops.h): place() finds the backend owning the operands (a DeviceError
// naming both when they are on two), operand::take<At<K>>() unwraps each operand as backend K's, operand::Wrap<R>
// wraps backend K's result as the router's, move_to() moves a tensor between backends through its values.
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/backend/operand_map.h"
#include "scorch/core/tensor_data.h"
#include "scorch/gen/kind_ops.h"
#include "scorch/router/router_tensor.h"

namespace scorch {
template <class... Bs> struct Router;
}  // namespace scorch

namespace scorch::router {

/// Backend K, as operand::take and operand::Wrap name the backend that runs an op.
template <size_t K> using At = std::integral_constant<size_t, K>;
/// Whether A (any reference and const) is a router operand: a tensor, a device, or an optional or list of tensors.
template <class A> constexpr bool kRouted = operand::kWrapped<A>;

/// The backend an op's operands are on, found operand by operand.
template <class... Bs> struct Placement {
  const char* op;
  std::optional<RouterDevice<Bs...>> first;  // the first operand's device

  void note(const RouterDevice<Bs...>& d) {
    if (!first) first = d;
    else if (first->backend() != d.backend())
      throw DeviceError(user_op_name(op), "operands on two backends: " + describe(*first) + " and " + describe(d) +
                                              " (move one with to_device first)");
  }
  /// "backend 1 (cpu:Cpu)": the router's position tells apart two backends of one type.
  static std::string describe(const RouterDevice<Bs...>& d) {
    return "backend " + std::to_string(d.backend()) + " (" + d.to_string() + ")";
  }
  /// The Tensor method's name for a backend op: float_add and int_add are add.
  static std::string user_op_name(std::string_view name) {
    for (std::string_view kind : {"float_", "int_"})
      if (name.substr(0, kind.size()) == kind) return std::string(name.substr(kind.size()));
    return std::string(name);
  }
  template <class Kind> void note(const RouterTensor<Kind, Bs...>& t) { note(t.device()); }
  template <class T> void note(const std::optional<T>& t) {
    if (t) note(*t);
  }
  template <class T> void note(const std::vector<T>& list) {
    for (const T& t : list) note(t);
  }
  template <class A> void note(const A&) requires(!kRouted<A>) {}
};

/// The position in Bs of the backend holding op's operands; a DeviceError when they are on two, or name none.
template <class... Bs, class... A> size_t place(const char* op, const A&... operands) {
  Placement<Bs...> p{op, std::nullopt};
  (p.note(operands), ...);
  if (!p.first) throw DeviceError(op, "no operand names a device to run on");
  return p.first->backend();
}

/// Whether every operand that names a device names one of the same backend (false, not an error, when two do).
template <class... Bs, class... A> bool on_one_backend(const A&... operands) {
  try {
    (void)place<Bs...>("on_one_backend", operands...);
    return true;
  } catch (const DeviceError&) { return false; }
}

/// Runs fn's call operator instantiated for the backend's position.
template <class... Bs, class Fn> decltype(auto) route(size_t backend, Fn&& fn) {
  return at_backend<Bs...>(backend, std::forward<Fn>(fn));
}

/// x on device: the backend's to_device on x's own backend, else x's values read there and written on device's.
template <class Kind, class... Bs>
RouterTensor<Kind, Bs...> move_to(RouterTensor<Kind, Bs...> x, const RouterDevice<Bs...>& device) {
  using R = RouterTensor<Kind, Bs...>;
  if (x.backend() == device.backend())
    return at_backend<Bs...>(device.backend(), [&]<size_t K>() {
      return R::template of<K>(
          KindOps<Nth<K, Bs...>, Kind>::to_device(std::move(x.template get<K>()), std::get<K>(device.device)));
    });
  TensorData data = at_backend<Bs...>(
      x.backend(), [&]<size_t K>() { return KindOps<Nth<K, Bs...>, Kind>::into_data(std::move(x.template get<K>())); });
  return at_backend<Bs...>(device.backend(), [&]<size_t K>() {
    return R::template of<K>(KindOps<Nth<K, Bs...>, Kind>::from_data(std::move(data), std::get<K>(device.device)));
  });
}

}  // namespace scorch::router

namespace scorch::operand {
/// A router tensor as backend At::value's primitive.
template <class Kind, class... Bs> struct Operand<router::RouterTensor<Kind, Bs...>> {
  static constexpr bool wrapped = true;
  template <class At> static auto take(router::RouterTensor<Kind, Bs...>&& t) {
    return std::move(t.template get<At::value>());
  }
  template <class At> static auto take(const router::RouterTensor<Kind, Bs...>& t) {
    return t.template get<At::value>();
  }
};
/// A router device as backend At::value's device.
template <class... Bs> struct Operand<router::RouterDevice<Bs...>> {
  static constexpr bool wrapped = true;
  template <class At> static auto take(const router::RouterDevice<Bs...>& d) { return std::get<At::value>(d.device); }
};
/// Backend At::value's primitive as a router tensor.
template <class Kind, class... Bs> struct Wrap<router::RouterTensor<Kind, Bs...>> {
  template <class At, class A> static router::RouterTensor<Kind, Bs...> from(A&& a) {
    return router::RouterTensor<Kind, Bs...>::template of<At::value>(std::forward<A>(a));
  }
};
}  // namespace scorch::operand
