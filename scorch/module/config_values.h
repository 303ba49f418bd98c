#pragma once
// ConfigValue<T>: a config field's value as a Record and back, with errors naming the field.
// Handles bool, integers (range-checked), floats, strings, SCORCH_ENUM enums, nested configs,
// std::vector, std::array and std::optional (null when empty).
#include <array>
#include <concepts>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/module/module_traits.h"
#include "scorch/module/record.h"

/// Declares an enum class whose values configs save by name: SCORCH_ENUM(Mode, Valid, Same).
#define SCORCH_ENUM(Name, ...)     \
  enum class Name { __VA_ARGS__ }; \
  [[maybe_unused]] constexpr std::string_view scorch_enum_names(Name) { return #__VA_ARGS__; }

namespace scorch {

/// A type declared with SCORCH_CONFIG.
template <class C>
concept Config = requires {
  C::scorch_config_name;
};
/// An enum declared with SCORCH_ENUM.
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires(E e) {
  { scorch_enum_names(e) } -> std::same_as<std::string_view>;
};

namespace detail {
/// Throws FormatError "[config] path: why".
[[noreturn]] void config_error(const std::string& path, const std::string& why);
/// `"expected <what>, found <describe(r)>"`.
[[noreturn]] void config_type_error(const std::string& path, std::string_view what, const Record& r);
/// The i-th name of a SCORCH_ENUM list.
template <NamedEnum E> std::string_view enum_name(E e) {
  constexpr std::string_view all = scorch_enum_names(E{});
  constexpr size_t n = count_names(all);
  constexpr auto names = split_names<n>(all);
  auto i = static_cast<size_t>(e);
  return i < n ? names[i] : std::string_view("?");
}
}  // namespace detail

template <class T> struct ConfigValue;

template <> struct ConfigValue<bool> {
  static Record to(bool v) { return Record(v); }
  static bool from(const Record& r, const std::string& path) {
    if (r.kind() != RecordKind::Bool) detail::config_type_error(path, "a bool", r);
    return r.as_bool();
  }
};

template <std::integral I>
requires(!std::same_as<I, bool>) struct ConfigValue<I> {
  static Record to(I v) {
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= 8)
      if (v > static_cast<I>(std::numeric_limits<int64_t>::max()))
        detail::config_error("", "value " + std::to_string(v) + " exceeds the int64 range");
    return Record(static_cast<int64_t>(v));
  }
  static I from(const Record& r, const std::string& path) {
    if (r.kind() != RecordKind::Int)
      detail::config_type_error(path, std::is_unsigned_v<I> ? "a non-negative integer" : "an integer", r);
    int64_t v = r.as_int();
    bool fits = std::is_unsigned_v<I> ? v >= 0 && static_cast<uint64_t>(v) <= std::numeric_limits<I>::max()
                                      : v >= static_cast<int64_t>(std::numeric_limits<I>::min()) &&
                                            v <= static_cast<int64_t>(std::numeric_limits<I>::max());
    if (!fits) detail::config_error(path, "value " + std::to_string(v) + " is out of range");
    return static_cast<I>(v);
  }
};

template <std::floating_point F> struct ConfigValue<F> {
  static Record to(F v) { return Record(static_cast<double>(v)); }
  static F from(const Record& r, const std::string& path) {
    if (r.kind() != RecordKind::Float && r.kind() != RecordKind::Int) detail::config_type_error(path, "a number", r);
    return static_cast<F>(r.as_float());
  }
};

template <> struct ConfigValue<std::string> {
  static Record to(const std::string& v) { return Record(v); }
  static std::string from(const Record& r, const std::string& path) {
    if (r.kind() != RecordKind::String) detail::config_type_error(path, "a string", r);
    return r.as_string();
  }
};

template <NamedEnum E> struct ConfigValue<E> {
  static Record to(E v) { return Record(std::string(detail::enum_name(v))); }
  static E from(const Record& r, const std::string& path) {
    constexpr std::string_view all = scorch_enum_names(E{});
    if (r.kind() == RecordKind::String) {
      constexpr size_t n = detail::count_names(all);
      constexpr auto names = detail::split_names<n>(all);
      for (size_t i = 0; i < n; ++i)
        if (names[i] == r.as_string()) return static_cast<E>(i);
    }
    detail::config_type_error(path, "one of " + std::string(all), r);
  }
};

template <class T> struct ConfigValue<std::optional<T>> {
  static Record to(const std::optional<T>& v) { return v ? ConfigValue<T>::to(*v) : Record(); }
  static std::optional<T> from(const Record& r, const std::string& path) {
    if (r.is_null()) return std::nullopt;
    return ConfigValue<T>::from(r, path);
  }
};

template <class T> struct ConfigValue<std::vector<T>> {
  static Record to(const std::vector<T>& v) {
    Record::List items;
    for (const auto& x : v) items.push_back(ConfigValue<T>::to(x));
    return Record(std::move(items));
  }
  static std::vector<T> from(const Record& r, const std::string& path) {
    if (!r.is_list()) detail::config_type_error(path, "a list", r);
    std::vector<T> out;
    for (size_t i = 0; i < r.size(); ++i)
      out.push_back(ConfigValue<T>::from(r.at(i), path + "[" + std::to_string(i) + "]"));
    return out;
  }
};

template <class T, size_t N> struct ConfigValue<std::array<T, N>> {
  static Record to(const std::array<T, N>& v) {
    Record::List items;
    for (const auto& x : v) items.push_back(ConfigValue<T>::to(x));
    return Record(std::move(items));
  }
  static std::array<T, N> from(const Record& r, const std::string& path) {
    if (!r.is_list() || r.size() != N) detail::config_type_error(path, "a list of " + std::to_string(N), r);
    std::array<T, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = ConfigValue<T>::from(r.at(i), path + "[" + std::to_string(i) + "]");
    return out;
  }
};

template <Config C> struct ConfigValue<C> {
  static Record to(const C& c) { return c.to_record(); }
  static C from(const Record& r, const std::string& path) { return C::from_record_at(r, path); }
};

namespace detail {
/// Reads one config's fields from a map record: required ones must exist, all must be known.
class ConfigReader {
 public:
  ConfigReader(const Record& r, std::string path, std::string_view type);
  /// The value of a field without a default; throws naming it when missing or mistyped.
  template <class T> T required(std::string_view name) const {
    const Record* v = record_.find(name);
    if (!v) config_error(at(name), "missing field (required by " + std::string(type_) + ")");
    return ConfigValue<T>::from(*v, at(name));
  }
  /// Overwrites field when the record has it (it keeps its default otherwise).
  template <class T> void optional(std::string_view name, T& field) const {
    if (const Record* v = record_.find(name)) field = ConfigValue<T>::from(*v, at(name));
  }
  /// Throws for a key that is not one of the config's fields (a typo would otherwise be ignored).
  void check_known(std::string_view names) const;

 private:
  std::string at(std::string_view name) const {
    return path_.empty() ? std::string(name) : path_ + "." + std::string(name);
  }
  const Record& record_;
  std::string path_;
  std::string_view type_;
};

/// The config as indented JSON text.
std::string config_to_json(const Record& r);
/// Parses JSON text into a record; source names the file in errors.
Record config_from_json(const std::string& text, const std::string& source);
/// Writes text to path atomically.
void save_config_text(const std::string& path, const std::string& text);
/// The text of a config file; throws IoError naming path.
std::string load_config_text(const std::string& path);
}  // namespace detail

}  // namespace scorch
