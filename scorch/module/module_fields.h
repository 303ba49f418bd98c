#pragma once
// FieldOps<T>: what visiting, mapping, recording and loading do with one field of a module,
// by field type — Param (a parameter), Tensor (a constant: moved, never saved), a nested
// module, std::vector / std::optional / std::array of those, and plain values (left alone).
#include <any>
#include <exception>
#include <string>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/module/module_traits.h"
#include "scorch/module/quantized_record.h"
#include "scorch/module/record.h"

namespace scorch {

/// How load_record treats a record that does not match the module exactly.
struct LoadOptions {
  /// Keep the module's own values for parameters the record lacks (a partial record).
  bool allow_missing = false;
  /// Ignore record entries no field of the module takes.
  bool allow_unused = false;
};

namespace detail {

/// The dot-joined path of the field being processed ("encoder.layers.0.weight").
class FieldPath {
 public:
  const std::string& str() const { return path_; }
  /// Runs f with name appended to the path.
  template <class F> void with(std::string_view name, F&& f) {
    size_t old = path_.size();
    if (!path_.empty()) path_ += '.';
    path_ += name;
    f();
    path_.resize(old);
  }

 private:
  std::string path_;
};

/// State of one load_record call: options, the file for messages, an optional target device.
struct LoadContext {
  LoadOptions options;
  std::string source;
  std::any device;
  FieldPath path;
  /// Throws E("[load_record] source: 'path': why").
  template <class E = FormatError> [[noreturn]] void fail(const std::string& why) const {
    throw E("load_record", where() + why);
  }
  /// "source: 'path': ", the head of load errors.
  std::string where() const { return (source.empty() ? "" : source + ": ") + "'" + path.str() + "': "; }
  /// Throws unless r is absent or empty (or unused entries are allowed).
  void check_unused(const Record* r) const {
    if (r && !options.allow_unused && (r->tensor_count() > 0 || (!r->is_null() && !r->is_map() && !r->is_list())))
      fail("unexpected entry " + describe(*r) + " (the module stores nothing here)");
  }
  /// Runs f for the field name; an Error it throws is kept and the next field goes on, so that one load reports
  /// every mismatched key (throw_problems).
  template <class F> void field(std::string_view name, F&& f) {
    path.with(name, [&]() {
      try {
        f();
      } catch (const Error& e) {
        if (!first_problem) first_problem = std::current_exception();
        problems.emplace_back(e.what());
      }
    });
  }
  /// Throws the kept problems as one error of the first one's type that lists each of them.
  void throw_problems() const;

  std::vector<std::string> problems;  ///< what() of each field that failed, in the order met
  std::exception_ptr first_problem;
};

}  // namespace detail

/// Plain fields: copied through transforms, never saved.
template <class T> struct FieldOps {
  template <class V> static void visit(const T&, V&, detail::FieldPath&) {}
  template <class To, class F> static rebind_backend_t<T, To> transform(const T& x, F&, detail::FieldPath&) {
    return x;
  }
  static Record record(const T&) { return Record(); }
  static T load(const T& x, const Record* r, detail::LoadContext& ctx) {
    ctx.check_unused(r);
    return x;
  }
};

/// Constant tensors: moved with the module and seen by device queries, never saved.
template <class B, size_t D, class K> struct FieldOps<Tensor<B, D, K>> {
  using T = Tensor<B, D, K>;
  template <class V> static void visit(const T& t, V& v, detail::FieldPath& path) {
    if constexpr (requires { v.constant(path.str(), t); }) v.constant(path.str(), t);
  }
  template <class To, class F> static Tensor<To, D, K> transform(const T& t, F& f, detail::FieldPath&) {
    return f.constant(t);
  }
  static Record record(const T&) { return Record(); }
  static T load(const T& x, const Record* r, detail::LoadContext& ctx) {
    ctx.check_unused(r);
    return x;
  }
};

/// Parameters: visited, mapped, saved with their ParamId, loaded with full validation.
template <class B, size_t D, class K> struct FieldOps<Param<Tensor<B, D, K>>> {
  using T = Param<Tensor<B, D, K>>;
  template <class V> static void visit(const T& p, V& v, detail::FieldPath& path) { v.visit(path.str(), p); }
  template <class To, class F> static auto transform(const T& p, F& f, detail::FieldPath& path) {
    return f.param(path.str(), p);
  }
  static Record record(const T& p) {
    if constexpr (std::same_as<K, Float>)
      if (p.is_quantized()) {
        const auto& q = p.quantized();
        return quantized_record(
            {q.values.to_data(), q.scales.to_data(), q.offsets.to_data(), q.scheme, q.input, q.dtype, p.id().value()});
      }
    return Record(p.val().to_data(), p.id().value());
  }
  static T load(const T& p, const Record* r, detail::LoadContext& ctx);
  /// A quantized parameter from its record (scorch/module/quantized_record.h), on p's device or the load's.
  static T load_quantized(const T& p, const Record& r, detail::LoadContext& ctx) {
    QuantizedRecord q = read_quantized_record(r, D, ctx.where());
    Shape shape = q.values.shape();
    if (q.scheme.value == QuantValue::Q4) shape[D - 1] *= 2;
    bool has_value = p.id().valid();
    if (has_value && shape != p.shape())
      ctx.template fail<ShapeError>("record shape " + shape.to_string() + ", module expects " + p.shape().to_string());
    typename B::Device device = has_value ? p.device() : typename B::Device{};
    if (auto* d = std::any_cast<typename B::Device>(&ctx.device)) device = *d;
    QTensor<B, D> qt{Tensor<B, D, Int>::from_data(q.values, device),
                     Tensor<B, D>::from_data(q.scales.convert(DType::F32), device),
                     Tensor<B, D, Int>::from_data(q.offsets.convert(DType::I32), device),
                     q.scheme,
                     q.input,
                     q.dtype};
    ParamId id = q.param_id ? ParamId(q.param_id) : has_value ? p.id() : ParamId::make();
    return T(id, std::move(qt));
  }
};

template <class B, size_t D, class K>
auto FieldOps<Param<Tensor<B, D, K>>>::load(const T& p, const Record* r, detail::LoadContext& ctx) -> T {
  if (!r) {
    if (ctx.options.allow_missing) return p;
    ctx.fail("missing key (the record has no value for this parameter)");
  }
  if constexpr (std::same_as<K, Float>)
    if (is_quantized_record(*r)) return load_quantized(p, *r, ctx);
  if (!r->is_tensor()) ctx.fail("expected a tensor, found " + describe(*r));
  const RecordTensor& rt = r->as_tensor();
  const TensorData& data = rt.data;
  if (!dtype_fits_kind<K>(data.dtype()))
    ctx.template fail<DTypeError>("the record holds " + std::string(dtype_name(data.dtype())) +
                                  " values, the parameter is " + std::string(K::name));
  bool has_value = p.id().valid();
  if (data.shape().rank() != D || (has_value && data.shape() != p.shape()))
    ctx.template fail<ShapeError>("record shape " + data.shape().to_string() + ", module expects " +
                                  (has_value ? p.shape().to_string() : "rank " + std::to_string(D)));
  DType target = has_value ? p.dtype() : K::default_dtype;  // a quantized parameter's: its float dtype
  typename B::Device device = has_value ? p.device() : typename B::Device{};
  if (auto* d = std::any_cast<typename B::Device>(&ctx.device)) device = *d;
  auto tensor = data.dtype() == target ? Tensor<B, D, K>::from_data(data, device)
                                       : Tensor<B, D, K>::from_data(data.convert(target), device);
  ParamId id = rt.param_id ? ParamId(rt.param_id) : has_value ? p.id() : ParamId::make();
  return T(id, std::move(tensor), has_value && !p.is_quantized() ? p.is_require_grad() : true);
}

namespace detail {
/// Shared by vectors and arrays: element records as a list, or a map keyed "0".."n-1" (safetensors).
template <class T, class Seq> void load_sequence(Seq& out, const Seq& in, const Record* r, LoadContext& ctx) {
  if (r && !r->is_list() && !r->is_map())
    ctx.fail("expected a list of " + std::to_string(in.size()) + " elements, found " + describe(*r));
  if (r && r->is_list() && r->size() != in.size())
    ctx.fail("the record has " + std::to_string(r->size()) + " elements, the module has " + std::to_string(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    const Record* element = !r ? nullptr : r->is_list() ? &r->at(i) : r->find(std::to_string(i));
    ctx.field(std::to_string(i), [&]() { out[i] = FieldOps<T>::load(in[i], element, ctx); });
  }
  if (r && r->is_map() && !ctx.options.allow_unused)
    for (const auto& [key, value] : r->as_map()) {
      bool known = false;
      for (size_t i = 0; i < in.size() && !known; ++i) known = key == std::to_string(i);
      if (!known)
        ctx.field(key,
                  [&]() { ctx.fail("unexpected key (the module has " + std::to_string(in.size()) + " elements)"); });
    }
}
/// Element records as a list; null when no element saves anything.
template <class T, class Seq> Record record_sequence(const Seq& seq) {
  Record::List items;
  bool any = false;
  for (const auto& x : seq) {
    items.push_back(FieldOps<T>::record(x));
    any = any || !items.back().is_null();
  }
  return any ? Record(std::move(items)) : Record();
}
}  // namespace detail

template <class T> struct FieldOps<std::vector<T>> {
  template <class V> static void visit(const std::vector<T>& xs, V& v, detail::FieldPath& path) {
    for (size_t i = 0; i < xs.size(); ++i) path.with(std::to_string(i), [&]() { FieldOps<T>::visit(xs[i], v, path); });
  }
  template <class To, class F> static auto transform(const std::vector<T>& xs, F& f, detail::FieldPath& path) {
    std::vector<rebind_backend_t<T, To>> out;
    out.reserve(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      path.with(std::to_string(i), [&]() { out.push_back(FieldOps<T>::template transform<To>(xs[i], f, path)); });
    return out;
  }
  static Record record(const std::vector<T>& xs) { return detail::record_sequence<T>(xs); }
  static std::vector<T> load(const std::vector<T>& xs, const Record* r, detail::LoadContext& ctx) {
    std::vector<T> out = xs;
    detail::load_sequence<T>(out, xs, r, ctx);
    return out;
  }
};

template <class T, size_t N> struct FieldOps<std::array<T, N>> {
  template <class V> static void visit(const std::array<T, N>& xs, V& v, detail::FieldPath& path) {
    for (size_t i = 0; i < N; ++i) path.with(std::to_string(i), [&]() { FieldOps<T>::visit(xs[i], v, path); });
  }
  template <class To, class F> static auto transform(const std::array<T, N>& xs, F& f, detail::FieldPath& path) {
    std::array<rebind_backend_t<T, To>, N> out;
    for (size_t i = 0; i < N; ++i)
      path.with(std::to_string(i), [&]() { out[i] = FieldOps<T>::template transform<To>(xs[i], f, path); });
    return out;
  }
  static Record record(const std::array<T, N>& xs) { return detail::record_sequence<T>(xs); }
  static std::array<T, N> load(const std::array<T, N>& xs, const Record* r, detail::LoadContext& ctx) {
    std::array<T, N> out = xs;
    detail::load_sequence<T>(out, xs, r, ctx);
    return out;
  }
};

template <class T> struct FieldOps<std::optional<T>> {
  template <class V> static void visit(const std::optional<T>& x, V& v, detail::FieldPath& path) {
    if (x) FieldOps<T>::visit(*x, v, path);
  }
  template <class To, class F>
  static std::optional<rebind_backend_t<T, To>> transform(const std::optional<T>& x, F& f, detail::FieldPath& path) {
    if (!x) return std::nullopt;
    return FieldOps<T>::template transform<To>(*x, f, path);
  }
  static Record record(const std::optional<T>& x) { return x ? FieldOps<T>::record(*x) : Record(); }
  static std::optional<T> load(const std::optional<T>& x, const Record* r, detail::LoadContext& ctx) {
    if (!x) {
      ctx.check_unused(r);
      return x;
    }
    return FieldOps<T>::load(*x, r, ctx);
  }
};

/// Nested modules: each listed field in turn, keyed by its name.
template <Module M> struct FieldOps<M> {
  template <class V> static void visit(const M& m, V& v, detail::FieldPath& path) {
    if constexpr (requires { v.enter_module(path.str(), M::scorch_module_name); })
      v.enter_module(path.str(), M::scorch_module_name);
    if constexpr (requires { v.module(path.str(), m); }) v.module(path.str(), m);
    for_each_field(m, [&](std::string_view name, const auto& field) {
      path.with(name, [&]() { FieldOps<std::remove_cvref_t<decltype(field)>>::visit(field, v, path); });
    });
    if constexpr (requires { v.exit_module(path.str(), M::scorch_module_name); })
      v.exit_module(path.str(), M::scorch_module_name);
  }
  template <class To, class F> static auto transform(const M& m, F& f, detail::FieldPath& path) {
    using Out = rebind_backend_t<M, To>;
    Out out = start<Out>(m);
    for_each_field_pair(out, m, [&](std::string_view name, auto& out_field, const auto& in_field) {
      path.with(name, [&]() {
        out_field = FieldOps<std::remove_cvref_t<decltype(in_field)>>::template transform<To>(in_field, f, path);
      });
    });
    return out;
  }
  static Record record(const M& m) {
    Record out = Record::map();
    for_each_field(m, [&](std::string_view name, const auto& field) {
      Record r = FieldOps<std::remove_cvref_t<decltype(field)>>::record(field);
      if (!r.is_null()) out.as_map_mut().emplace_back(std::string(name), std::move(r));
    });
    return out.size() ? out : Record();
  }
  // Defined in the class: clang 14 rejects an out-of-class member of a constrained partial specialization.
  static M load(const M& m, const Record* r, detail::LoadContext& ctx) {
    if (r && !r->is_map() && !r->is_null())
      ctx.fail("expected a map for module " + std::string(M::scorch_module_name) + ", found " + describe(*r));
    M out = m;
    for_each_field_pair(out, m, [&](std::string_view name, auto& out_field, const auto& in_field) {
      const Record* field_record = r ? r->find(name) : nullptr;
      ctx.field(name, [&]() {
        out_field = FieldOps<std::remove_cvref_t<decltype(in_field)>>::load(in_field, field_record, ctx);
      });
    });
    if (r && r->is_map() && !ctx.options.allow_unused)
      for (const auto& [key, value] : r->as_map()) {
        bool known = false;
        for (std::string_view name : module_field_names<M>) known = known || name == key;
        if (!known)
          ctx.field(key, [&]() {
            ctx.fail("unexpected key (module " + std::string(M::scorch_module_name) + " has no such field)");
          });
      }
    return out;
  }

 private:
  template <class Out> static Out start(const M& m) {
    if constexpr (std::same_as<Out, M>) return m;
    else {
      static_assert(std::is_default_constructible_v<Out>,
                    "moving a module to another backend needs a default constructor");
      return Out{};
    }
  }
};

}  // namespace scorch
