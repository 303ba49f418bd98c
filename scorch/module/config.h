#pragma once
// Configs: plain structs whose fields are declared as usual (with their defaults), then listed
// once — required fields (no default) in the first group, defaulted ones in the second:
//
//   struct ModelConfig {
//     size_t num_classes;
//     size_t hidden_size;
//     double dropout = 0.5;
//     SCORCH_CONFIG(ModelConfig, (num_classes, hidden_size), (dropout))
//   };
//   auto config = ModelConfig(10, 512).with_dropout(0.2);
//   config.save("config.json");  auto same = ModelConfig::load("config.json");
//
// The macro gives a constructor taking the required fields, with_<field> setters, JSON
// save/load (errors name a missing, unknown or mistyped field and the file), == and <<.
#include <iosfwd>
#include <string>
#include <string_view>

#include "scorch/module/config_values.h"

// ---- a __VA_OPT__ for-each (up to 64 entries per group)
#define SCORCH_PP_PARENS ()
#define SCORCH_PP_EXPAND(...) SCORCH_PP_EXPAND3(SCORCH_PP_EXPAND3(SCORCH_PP_EXPAND3(SCORCH_PP_EXPAND3(__VA_ARGS__))))
#define SCORCH_PP_EXPAND3(...) SCORCH_PP_EXPAND2(SCORCH_PP_EXPAND2(SCORCH_PP_EXPAND2(SCORCH_PP_EXPAND2(__VA_ARGS__))))
#define SCORCH_PP_EXPAND2(...) SCORCH_PP_EXPAND1(SCORCH_PP_EXPAND1(SCORCH_PP_EXPAND1(SCORCH_PP_EXPAND1(__VA_ARGS__))))
#define SCORCH_PP_EXPAND1(...) __VA_ARGS__
#define SCORCH_PP_FOR_EACH(macro, ...) __VA_OPT__(SCORCH_PP_EXPAND(SCORCH_PP_FOR_EACH_STEP(macro, __VA_ARGS__)))
#define SCORCH_PP_FOR_EACH_STEP(macro, first, ...) \
  macro(first) __VA_OPT__(SCORCH_PP_FOR_EACH_AGAIN SCORCH_PP_PARENS(macro, __VA_ARGS__))
#define SCORCH_PP_FOR_EACH_AGAIN() SCORCH_PP_FOR_EACH_STEP
#define SCORCH_PP_UNPAREN(...) __VA_ARGS__
#define SCORCH_PP_FOR_GROUP(macro, group) SCORCH_PP_FOR_GROUP_I(macro, SCORCH_PP_UNPAREN group)
#define SCORCH_PP_FOR_GROUP_I(macro, ...) SCORCH_PP_FOR_EACH(macro, __VA_ARGS__)
#define SCORCH_PP_STRING_GROUP(group) SCORCH_PP_STRING_GROUP_X(SCORCH_PP_UNPAREN group)
#define SCORCH_PP_STRING_GROUP_X(...) SCORCH_PP_STRING_GROUP_I(__VA_ARGS__)
#define SCORCH_PP_STRING_GROUP_I(...) #__VA_ARGS__

// ---- per-field pieces of SCORCH_CONFIG
#define SCORCH_CONFIG_PARAM_(f) decltype(f) f##_arg,
#define SCORCH_CONFIG_INIT_(f) f(std::move(f##_arg)),
#define SCORCH_CONFIG_READ_(f) reader.template required<decltype(f)>(#f),
#define SCORCH_CONFIG_READ_OPT_(f) reader.optional(#f, out.f);
#define SCORCH_CONFIG_WRITE_(f) out.set(#f, ::scorch::ConfigValue<decltype(f)>::to(f));
#define SCORCH_CONFIG_WITH_(f)                         \
  auto with_##f(decltype(f) scorch_new_value) const& { \
    auto copy = *this;                                 \
    copy.f = std::move(scorch_new_value);              \
    return copy;                                       \
  }                                                    \
  auto with_##f(decltype(f) scorch_new_value)&& {      \
    f = std::move(scorch_new_value);                   \
    return std::move(*this);                           \
  }

namespace scorch {
/// Ends the generated constructor's parameter list (so it may be empty).
struct ConfigEnd {
  friend bool operator==(ConfigEnd, ConfigEnd) { return true; }
};
}  // namespace scorch

/// Lists a config's fields: SCORCH_CONFIG(Name, (required...), (defaulted...)); either group may be ().
#define SCORCH_CONFIG(Name, required, defaulted)                                                                       \
  [[no_unique_address]] ::scorch::ConfigEnd scorch_config_end_{};                                                      \
  static constexpr std::string_view scorch_config_name = #Name;                                                        \
  static constexpr std::string_view scorch_required_fields = SCORCH_PP_STRING_GROUP(required);                         \
  static constexpr std::string_view scorch_defaulted_fields = SCORCH_PP_STRING_GROUP(defaulted);                       \
  Name(SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_PARAM_, required)::scorch::ConfigEnd = {})                                    \
      : SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_INIT_, required) scorch_config_end_() {}                                     \
  SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_WITH_, required)                                                                   \
  SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_WITH_, defaulted)                                                                  \
  /** The fields as a map record. */                                                                                   \
  ::scorch::Record to_record() const {                                                                                 \
    ::scorch::Record out = ::scorch::Record::map();                                                                    \
    SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_WRITE_, required)                                                                \
    SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_WRITE_, defaulted)                                                               \
    return out;                                                                                                        \
  }                                                                                                                    \
  /** Reads a config from a map record; path prefixes field names in errors. */                                        \
  static Name from_record_at(const ::scorch::Record& record, const std::string& path) {                                \
    ::scorch::detail::ConfigReader reader(record, path, #Name);                                                        \
    Name out(SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_READ_, required)::scorch::ConfigEnd{});                                 \
    SCORCH_PP_FOR_GROUP(SCORCH_CONFIG_READ_OPT_, defaulted)                                                            \
    reader.check_known(std::string(scorch_required_fields) + "," + std::string(scorch_defaulted_fields));              \
    return out;                                                                                                        \
  }                                                                                                                    \
  static Name from_record(const ::scorch::Record& record) { return from_record_at(record, #Name); }                    \
  /** Indented JSON. */                                                                                                \
  std::string to_json() const { return ::scorch::detail::config_to_json(to_record()); }                                \
  static Name from_json(const std::string& text, const std::string& source = "<json>") {                               \
    return from_record_at(::scorch::detail::config_from_json(text, source), std::string(#Name) + " (" + source + ")"); \
  }                                                                                                                    \
  /** Writes the JSON to path (atomically). */                                                                         \
  void save(const std::string& path) const { ::scorch::detail::save_config_text(path, to_json()); }                    \
  static Name load(const std::string& path) { return from_json(::scorch::detail::load_config_text(path), path); }      \
  friend bool operator==(const Name&, const Name&) = default;                                                          \
  friend std::ostream& operator<<(std::ostream& os, const Name& config) {                                              \
    return ::scorch::detail::print_config(os, config.to_json());                                                       \
  }

namespace scorch::detail {
/// Writes text to os (keeps `<ostream>` out of this header).
std::ostream& print_config(std::ostream& os, const std::string& text);
}  // namespace scorch::detail
