#pragma once
// Router<Bs...>'s device and primitives: a device of one of its backends (by position in Bs), and a tensor of one of
// its backends. Positions, not types, tell backends apart, so Router<Cpu, Cpu> has two.
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "scorch/backend/kind.h"
#include "scorch/core/error.h"
#include "scorch/core/shape.h"

namespace scorch::router {

/// The K-th backend of Bs.
template <size_t K, class... Bs> using Nth = std::tuple_element_t<K, std::tuple<Bs...>>;

/// Calls fn's call operator instantiated for the backend position equal to k (below sizeof...(Bs)); each position's
/// call returns one type.
template <size_t K, class... Bs, class Fn> decltype(auto) at_backend(size_t k, Fn&& fn) {
  if constexpr (K + 1 == sizeof...(Bs)) return fn.template operator()<K>();
  else if (k == K) return fn.template operator()<K>();
  else return at_backend<K + 1, Bs...>(k, std::forward<Fn>(fn));
}
template <class... Bs, class Fn> decltype(auto) at_backend(size_t k, Fn&& fn) {
  return at_backend<0, Bs...>(k, std::forward<Fn>(fn));
}

template <class... Bs> struct RouterDevice;

/// The device a default-constructed RouterDevice names: the first backend's default device unless
/// Router::set_default_device chose another (set it before tensors are made, from one thread).
template <class... Bs> std::variant<typename Bs::Device...>& default_device() {
  static std::variant<typename Bs::Device...> device(std::in_place_index<0>);
  return device;
}

/// A device of one of Bs: which backend (backend()) and its device there.
template <class... Bs> struct RouterDevice {
  std::variant<typename Bs::Device...> device;

  /// The default device (default_device()).
  RouterDevice() : device(default_device<Bs...>()) {}
  /// Backend K's device d.
  template <size_t K> static RouterDevice on(typename Nth<K, Bs...>::Device d) {
    RouterDevice r;
    r.device.template emplace<K>(std::move(d));
    return r;
  }
  /// The device's backend, as its position in Bs.
  size_t backend() const { return device.index(); }
  /// The backend's name and its device, e.g. "cpu:Cpu" or "vulkan:Vulkan(0)".
  std::string to_string() const {
    return at_backend<Bs...>(backend(),
                             [&]<size_t K>() { return Nth<K, Bs...>::name() + ":" + std::get<K>(device).to_string(); });
  }
  friend bool operator==(const RouterDevice& a, const RouterDevice& b) { return a.device == b.device; }
};

/// A tensor of kind Kind on one of Bs: that backend's primitive, by position.
template <class Kind, class... Bs> class RouterTensor {
 public:
  /// Backend K's primitive of this kind.
  template <size_t K> using Inner = typename Kind::template Primitive<Nth<K, Bs...>>;

  /// An empty tensor (the first backend's empty primitive), to be assigned (Autodiff keeps such placeholders).
  RouterTensor() = default;
  /// Backend K's tensor t.
  template <size_t K> static RouterTensor of(Inner<K> t) { return RouterTensor(std::in_place_index<K>, std::move(t)); }
  /// The backend holding the tensor, as its position in Bs.
  size_t backend() const { return value_.index(); }
  /// The tensor as backend K's (K must be backend()).
  template <size_t K> Inner<K>& get() { return std::get<K>(value_); }
  template <size_t K> const Inner<K>& get() const { return std::get<K>(value_); }

  Shape shape() const {
    return std::visit([](const auto& t) { return Shape(t.shape()); }, value_);
  }
  DType dtype() const {
    return std::visit([](const auto& t) { return DType(t.dtype()); }, value_);
  }
  RouterDevice<Bs...> device() const {
    return at_backend<Bs...>(backend(),
                             [&]<size_t K>() { return RouterDevice<Bs...>::template on<K>(get<K>().device()); });
  }

 private:
  template <size_t K> RouterTensor(std::in_place_index_t<K> at, Inner<K> t) : value_(at, std::move(t)) {}
  std::variant<typename Kind::template Primitive<Bs>...> value_;
};

}  // namespace scorch::router
