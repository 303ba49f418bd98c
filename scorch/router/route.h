#pragma once
// How Router<Bs...> runs an op (scorch/gen/router_ops.h): place() finds the backend owning the operands (a DeviceError
// naming both when they are on two), take<K>() unwraps each operand as backend K's, Wrap<R> wraps backend K's result
// as the router's, move_to() moves a tensor between backends through its values.
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/core/tensor_data.h"
#include "scorch/gen/kind_ops.h"
#include "scorch/router/router_tensor.h"

namespace scorch {
template <class... Bs> struct Router;
}  // namespace scorch

namespace scorch::router {

template <class T> struct IsRouted : std::false_type {};
template <class Kind, class... Bs> struct IsRouted<RouterTensor<Kind, Bs...>> : std::true_type {};
template <class... Bs> struct IsRouted<RouterDevice<Bs...>> : std::true_type {};
template <class T> struct IsRouted<std::optional<T>> : IsRouted<T> {};
template <class T> struct IsRouted<std::vector<T>> : IsRouted<T> {};
/// Whether A (any reference and const) is a router operand: a tensor, a device, or an optional or list of tensors.
template <class A> constexpr bool kRouted = IsRouted<std::remove_cvref_t<A>>::value;

/// The backend an op's operands are on, found operand by operand.
template <class... Bs> struct Placement {
  const char* op;
  std::optional<RouterDevice<Bs...>> first;  // the first operand's device

  void note(const RouterDevice<Bs...>& d) {
    if (!first) first = d;
    else if (first->backend() != d.backend())
      throw DeviceError(op, "operands on two backends: " + first->to_string() + " and " + d.to_string() +
                                " (move one with to_device first)");
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

/// An operand as backend K's: tensors, optional tensors, lists of tensors and devices unwrapped; others as they are.
template <size_t K, class A> decltype(auto) take(A&& a) requires(!kRouted<A>) { return std::forward<A>(a); }
template <size_t K, class Kind, class... Bs> auto take(RouterTensor<Kind, Bs...>&& t) {
  return std::move(t.template get<K>());
}
template <size_t K, class Kind, class... Bs> auto take(const RouterTensor<Kind, Bs...>& t) {
  return t.template get<K>();
}
template <size_t K, class... Bs> auto take(const RouterDevice<Bs...>& d) { return std::get<K>(d.device); }
template <size_t K, class T>
requires kRouted<T>
auto take(const std::optional<T>& t) {  // no trailing decltype: g++ 12 recursed through this overload there
  using Inner = decltype(take<K>(*t));
  if (!t) return std::optional<Inner>();
  return std::optional<Inner>(take<K>(*t));
}
template <size_t K, class T>
requires kRouted<T>
auto take(std::vector<T>&& list) {
  std::vector<decltype(take<K>(std::move(list[0])))> out;
  out.reserve(list.size());
  for (T& t : list) out.push_back(take<K>(std::move(t)));
  return out;
}
template <size_t K, class T>
requires kRouted<T>
auto take(const std::vector<T>& list) {
  std::vector<T> copy = list;
  return take<K>(std::move(copy));
}

/// Backend K's result as the router's R: tensors wrapped, pairs, optionals, lists and gradient/update structs field
/// by field; values (TensorData, counts) as they are.
template <class R> struct Wrap {
  template <size_t K, class A> static R from(A&& a) { return R(std::forward<A>(a)); }
};
template <class Kind, class... Bs> struct Wrap<RouterTensor<Kind, Bs...>> {
  template <size_t K, class A> static RouterTensor<Kind, Bs...> from(A&& a) {
    return RouterTensor<Kind, Bs...>::template of<K>(std::forward<A>(a));
  }
};
template <class A, class B> struct Wrap<std::pair<A, B>> {
  template <size_t K, class P> static std::pair<A, B> from(P&& p) {
    return {Wrap<A>::template from<K>(std::move(p.first)), Wrap<B>::template from<K>(std::move(p.second))};
  }
};
template <class T> struct Wrap<std::optional<T>> {
  template <size_t K, class O> static std::optional<T> from(O&& o) {
    if (!o) return std::nullopt;
    return Wrap<T>::template from<K>(std::move(*o));
  }
};
template <class T> struct Wrap<std::vector<T>> {
  template <size_t K, class V> static std::vector<T> from(V&& list) {
    std::vector<T> out;
    out.reserve(list.size());
    for (auto& x : list) out.push_back(Wrap<T>::template from<K>(std::move(x)));
    return out;
  }
};
template <class T> struct Wrap<AdamUpdate<T>> {
  template <size_t K, class U> static AdamUpdate<T> from(U&& u) {
    return {Wrap<T>::template from<K>(std::move(u.param)), Wrap<T>::template from<K>(std::move(u.moment_1)),
            Wrap<T>::template from<K>(std::move(u.moment_2))};
  }
};
template <class T> struct Wrap<SgdUpdate<T>> {
  template <size_t K, class U> static SgdUpdate<T> from(U&& u) {
    return {Wrap<T>::template from<K>(std::move(u.param)), Wrap<std::optional<T>>::template from<K>(u.velocity)};
  }
};
template <class T> struct Wrap<ConvGradients<T>> {
  template <size_t K, class G> static ConvGradients<T> from(G&& g) {
    return {Wrap<T>::template from<K>(std::move(g.x)), Wrap<T>::template from<K>(std::move(g.weight)),
            Wrap<std::optional<T>>::template from<K>(g.bias)};
  }
};
template <class T> struct Wrap<AttentionGradients<T>> {
  template <size_t K, class G> static AttentionGradients<T> from(G&& g) {
    return {Wrap<T>::template from<K>(std::move(g.q)), Wrap<T>::template from<K>(std::move(g.k)),
            Wrap<T>::template from<K>(std::move(g.v))};
  }
};
template <class T> struct Wrap<NormGradients<T>> {
  template <size_t K, class G> static NormGradients<T> from(G&& g) {
    return {Wrap<T>::template from<K>(std::move(g.x)), Wrap<std::optional<T>>::template from<K>(g.gamma),
            Wrap<std::optional<T>>::template from<K>(g.beta)};
  }
};

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
