#pragma once
// Router<Bs...>: several backends as one, as Burn's Router decorator. Its devices are its backends' devices
// (RouterDevice: the backend by position and its device there); each op runs on the backend holding its operands
// (mixing two in one op is a DeviceError naming both), and to_device moves a tensor to any device of any of them.
// Autodiff<Router<Cpu, Cuda>> trains a model whose parts live on different backends, with one tensor type.
#include <cstdint>
#include <string>

#include "scorch/gen/router_ops.h"

namespace scorch {

template <class... Bs> struct Router : router::GeneratedOps<Bs...> {
  static_assert(sizeof...(Bs) >= 1, "Router needs at least one backend");
  using FloatTensor = router::RouterTensor<Float, Bs...>;
  using IntTensor = router::RouterTensor<Int, Bs...>;
  using BoolTensor = router::RouterTensor<Bool, Bs...>;
  using Device = router::RouterDevice<Bs...>;

  /// Backend K's device d as the router's, e.g. Router<Cpu, Cuda>::device<1>(CudaDevice{0}).
  template <size_t K> static Device device(typename router::Nth<K, Bs...>::Device d = {}) {
    return Device::template on<K>(std::move(d));
  }
  /// Makes d the device Device{} names (the default device of tensors made without one); the first backend's
  /// default device until then.
  static void set_default_device(const Device& d) { router::default_device<Bs...>() = d.device; }
  /// "router<cpu,cuda>".
  static std::string name() {
    std::string out;
    ((out += (out.empty() ? "" : ",") + Bs::name()), ...);
    return "router<" + out + ">";
  }
  /// Seeds every backend.
  static void seed(uint64_t s) { (Bs::seed(s), ...); }
  /// Waits for device's backend.
  static void sync(const Device& d) {
    router::at_backend<Bs...>(d.backend(), [&]<size_t K>() { router::Nth<K, Bs...>::sync(std::get<K>(d.device)); });
  }
};

}  // namespace scorch
