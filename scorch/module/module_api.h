#pragma once
// What every module can do, as free functions over the field list (SCORCH_MODULE forwards its
// member functions here): count and visit parameters, map them, move the module between
// devices and backends, and turn it into a Record and back.
#include <algorithm>
#include <string>
#include <vector>

#include "scorch/module/module_fields.h"

namespace scorch {

/// Optional base of a visitor: v.visit(path, param) is called for each parameter; enter/exit are optional, and
/// a visitor with a `module(path, const M&)` member template sees each nested module itself.
struct ModuleVisitor {
  void enter_module(const std::string& /*path*/, std::string_view /*type*/) {}
  void exit_module(const std::string& /*path*/, std::string_view /*type*/) {}
};
/// Optional base of a mapper: m.map(path, param) returns the replacement for each parameter.
struct ModuleMapper {};

namespace detail {
/// Adapts a user mapper to the transform protocol (constants pass through).
template <class Mapper> struct MapperTransform {
  Mapper& mapper;
  template <class P> P param(const std::string& path, const P& p) { return mapper.map(path, p); }
  template <class T> T constant(const T& t) { return t; }
};
/// Moves parameters and constants to a device; parameters stay leaves with their require_grad.
template <class Device> struct DeviceTransform {
  const Device& device;
  template <class P> P param(const std::string&, const P& p) {
    return p.map_parts([&](const auto& t) { return t.to_device(device); });
  }
  template <class T> T constant(const T& t) { return t.to_device(device); }
};
/// Autodiff module → the same module on the inner backend (no graph).
struct InnerTransform {
  template <class P> auto param(const std::string&, const P& p) {
    return p.map_parts([](const auto& t) { return t.inner(); });
  }
  template <class T> auto constant(const T& t) { return t.inner(); }
};
/// Inner module → the autodiff module AD (parameters become tracked leaves).
template <class AD> struct FromInnerTransform {
  template <class P> auto param(const std::string&, const P& p) {
    return p.map_parts([](const auto& t) { return rebind_backend_t<std::decay_t<decltype(t)>, AD>::from_inner(t); });
  }
  template <class T> auto constant(const T& t) { return rebind_backend_t<T, AD>::from_inner(t); }
};
/// Counts parameter elements.
struct ParamCounter {
  size_t n = 0;
  template <class P> void visit(const std::string&, const P& p) { n += p.id().valid() ? p.shape().num_elements() : 0; }
};
/// Collects distinct devices of parameters and constants.
template <class Device> struct DeviceCollector {
  std::vector<Device> found;
  void add(const Device& d) {
    if (std::find(found.begin(), found.end(), d) == found.end()) found.push_back(d);
  }
  template <class P> void visit(const std::string&, const P& p) {
    if (p.id().valid()) add(p.device());
  }
  template <class T> void constant(const std::string&, const T& t) { add(t.device()); }
};
/// Turns require_grad off.
struct NoGradMapper {
  template <class P> P map(const std::string&, const P& p) { return p.set_require_grad(false); }
};
}  // namespace detail

/// Calls visitor.visit(path, param) for each parameter, depth first in field order.
template <Module M, class V> void visit_module(const M& m, V& visitor) {
  detail::FieldPath path;
  FieldOps<M>::visit(m, visitor, path);
}

/// The module with mapper.map(path, param) applied to each parameter.
template <Module M, class Mapper> M map_module(const M& m, Mapper& mapper) {
  detail::FieldPath path;
  detail::MapperTransform<Mapper> f{mapper};
  return FieldOps<M>::template transform<BackendOf<M>>(m, f, path);
}

/// The number of parameter values (elements of every Param tensor).
template <Module M> size_t num_params(const M& m) {
  detail::ParamCounter counter;
  visit_module(m, counter);
  return counter.n;
}

/// The distinct devices holding the module's parameters and constants.
template <Module M> std::vector<DeviceOf<M>> devices(const M& m) {
  detail::DeviceCollector<DeviceOf<M>> collector;
  visit_module(m, collector);
  return collector.found;
}

/// The module on device; parameters stay leaves (as PyTorch's module.to(device)), ids and flags kept.
template <Module M, class Device> M to_device(const M& m, const Device& device) {
  detail::FieldPath path;
  detail::DeviceTransform<Device> f{device};
  return FieldOps<M>::template transform<BackendOf<M>>(m, f, path);
}

/// A copy on device detached from any graph (for data-parallel replicas); same ids and flags.
template <Module M, class Device> M fork(const M& m, const Device& device) { return to_device(m, device); }

/// The module with every parameter's require_grad off: saved as before, skipped by optimizers.
template <Module M> M no_grad(const M& m) {
  detail::NoGradMapper off;
  return map_module(m, off);
}

/// The same module on the inner backend of its autodiff backend (for validation and inference).
template <Module M> auto valid(const M& m) {
  using B = BackendOf<M>;
  if constexpr (std::is_void_v<B>) return m;
  else {
    static_assert(AutodiffBackend<B>, "valid() needs a module on an autodiff backend");
    detail::FieldPath path;
    detail::InnerTransform f;
    return FieldOps<M>::template transform<InnerOf<B>>(m, f, path);
  }
}

/// The same module on the autodiff backend AD, whose inner backend m runs on.
template <class AD, Module M> auto from_inner(const M& m) {
  static_assert(AutodiffBackend<AD>, "from_inner needs an autodiff backend");
  detail::FieldPath path;
  detail::FromInnerTransform<AD> f;
  return FieldOps<M>::template transform<AD>(m, f, path);
}

/// The module's parameters as a map keyed by field name (modules without parameters give an empty map).
template <Module M> Record into_record(const M& m) {
  Record r = FieldOps<M>::record(m);
  return r.is_null() ? Record::map() : r;
}

/// A copy of m with its parameters from record, converted to each parameter's dtype and kept on
/// its device. Throws (naming the key) on a missing or unexpected key, a wrong shape or kind; m is unchanged.
template <Module M> M load_record(const M& m, const Record& record, const LoadOptions& options = {}) {
  detail::LoadContext ctx;
  ctx.options = options;
  M out = FieldOps<M>::load(m, &record, ctx);
  ctx.throw_problems();
  return out;
}

/// load_record for a record read from source (named in errors), placing parameters on device.
template <Module M, class Device> M load_record_from(const M& m, const Record& record, const std::string& source,
                                                     const Device& device, const LoadOptions& options = {}) {
  detail::LoadContext ctx;
  ctx.options = options;
  ctx.source = source;
  ctx.device = device;
  M out = FieldOps<M>::load(m, &record, ctx);
  ctx.throw_problems();
  return out;
}

/// Saves the module with recorder at path (the recorder adds its extension); returns the file written.
template <Module M, class Recorder>
std::string save_file(const M& m, const std::string& path, const Recorder& recorder) {
  return recorder.record(into_record(m), path);
}

/// A copy of m with the parameters recorder saved at path, on device. m is unchanged on any error.
template <Module M, class Recorder, class Device> M load_file(const M& m, const std::string& path,
                                                              const Recorder& recorder, const Device& device,
                                                              const LoadOptions& options = {}) {
  return load_record_from(m, recorder.load(path), recorder.file_path(path), device, options);
}

}  // namespace scorch
