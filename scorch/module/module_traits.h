#pragma once
// Type-level facts about modules: the Module concept (types declaring SCORCH_MODULE), their
// field names, the backend a module runs on, and the same module type on another backend.
#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "scorch/module/param.h"

namespace scorch {

/// A type that lists its fields with SCORCH_MODULE.
template <class M>
concept Module = requires {
  M::scorch_module_name;
  M::scorch_field_names;
};

namespace detail {
constexpr std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
constexpr size_t count_names(std::string_view s) {
  if (trim(s).empty()) return 0;
  size_t n = 1;
  for (char c : s) n += c == ',';
  return n;
}
template <size_t N> constexpr std::array<std::string_view, N> split_names(std::string_view s) {
  std::array<std::string_view, N> out{};
  for (size_t i = 0; i < N; ++i) {
    size_t comma = s.find(',');
    out[i] = trim(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
  }
  return out;
}
}  // namespace detail

/// A module's field names, in SCORCH_MODULE order; they are the record keys.
template <Module M> inline constexpr auto module_field_names =
    detail::split_names<detail::count_names(M::scorch_field_names)>(M::scorch_field_names);

/// Calls f(name, field) for each listed field of m (const or not).
template <class M, class F> void for_each_field(M& m, F&& f) {
  auto fields = m.scorch_fields();
  constexpr auto& names = module_field_names<std::remove_const_t<M>>;
  static_assert(names.size() == std::tuple_size_v<decltype(fields)>, "SCORCH_MODULE: field list mismatch");
  [&]<size_t... I>(std::index_sequence<I...>) { (f(names[I], std::get<I>(fields)), ...); }
  (std::make_index_sequence<names.size()>{});
}

/// Calls f(name, out_field, in_field) for the fields of two modules with the same field list.
template <class Out, class In, class F> void for_each_field_pair(Out& out, const In& in, F&& f) {
  auto outs = out.scorch_fields();
  auto ins = in.scorch_fields();
  constexpr auto& names = module_field_names<In>;
  [&]<size_t... I>(std::index_sequence<I...>) { (f(names[I], std::get<I>(outs), std::get<I>(ins)), ...); }
  (std::make_index_sequence<names.size()>{});
}

// ---- the backend of a field type (void when it holds no tensor)
template <class T> struct BackendOfT { using type = void; };
template <class B, size_t D, class K> struct BackendOfT<Tensor<B, D, K>> { using type = B; };
template <class T> struct BackendOfT<Param<T>> : BackendOfT<T> {};
template <class T> struct BackendOfT<std::vector<T>> : BackendOfT<T> {};
template <class T> struct BackendOfT<std::optional<T>> : BackendOfT<T> {};
template <class T, size_t N> struct BackendOfT<std::array<T, N>> : BackendOfT<T> {};

namespace detail {
template <class... Ts> struct FirstBackend { using type = void; };
template <class T, class... Ts> struct FirstBackend<T, Ts...> {
  using head = typename BackendOfT<std::remove_cvref_t<T>>::type;
  using type = std::conditional_t<std::is_void_v<head>, typename FirstBackend<Ts...>::type, head>;
};
template <class Tuple> struct TupleBackend;
template <class... Ts> struct TupleBackend<std::tuple<Ts...>> : FirstBackend<Ts...> {};
}  // namespace detail

template <Module M> struct BackendOfT<M> : detail::TupleBackend<decltype(std::declval<const M&>().scorch_fields())> {};
/// The backend a module's tensors live on (void for modules without tensors).
template <class M> using BackendOf = typename BackendOfT<M>::type;

namespace detail {
template <class B> struct DeviceOfT { using type = typename B::Device; };
template <> struct DeviceOfT<void> { using type = std::monostate; };
}  // namespace detail
/// The device type of a module's backend (std::monostate when it has no tensors).
template <class M> using DeviceOf = typename detail::DeviceOfT<BackendOf<M>>::type;

// ---- the same type on backend To: Tensor<B,…> → Tensor<To,…>, Model<B> → Model<To>, recursively
template <class T, class To> struct RebindBackend { using type = T; };
template <class B, size_t D, class K, class To> struct RebindBackend<Tensor<B, D, K>, To> {
  using type = Tensor<To, D, K>;
};
template <class T, class To> struct RebindBackend<Param<T>, To> {
  using type = Param<typename RebindBackend<T, To>::type>;
};
template <class T, class To> struct RebindBackend<std::vector<T>, To> {
  using type = std::vector<typename RebindBackend<T, To>::type>;
};
template <class T, class To> struct RebindBackend<std::optional<T>, To> {
  using type = std::optional<typename RebindBackend<T, To>::type>;
};
template <class T, size_t N, class To> struct RebindBackend<std::array<T, N>, To> {
  using type = std::array<typename RebindBackend<T, To>::type, N>;
};
template <template <class> class M, class B, class To>
requires Backend<B>
struct RebindBackend<M<B>, To> {
  using type = M<To>;
};
/// T with its backend replaced by To (modules must be templates over their backend alone).
template <class T, class To> using rebind_backend_t = typename RebindBackend<T, To>::type;

}  // namespace scorch
