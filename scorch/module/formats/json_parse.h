#pragma once
// Bounded JSON parsing for every loader that reads JSON from a file (records, configs, safetensors
// headers, JSON lines): nesting is checked before nlohmann parses, and every nlohmann exception
// (syntax, numbers out of double's range, ...) becomes a FormatError naming the source.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>

#include "scorch/core/error.h"

namespace scorch::formats {

/// Deepest nesting of arrays and objects a JSON text may have.
inline constexpr size_t kMaxJsonDepth = 512;

/// The byte offset where text first nests deeper than max_depth, or npos; strings are skipped.
inline size_t json_too_deep_at(std::string_view text, size_t max_depth = kMaxJsonDepth) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

/// text parsed keeping each object's key order, in time linear in the text; FormatError on a duplicate key.
nlohmann::ordered_json parse_ordered_json(std::string_view text, const char* op, const std::string& where);

/// text parsed as Json with nesting bounded by kMaxJsonDepth; FormatError "[op] where: ..." for any error.
template <class Json> Json parse_json_bounded(std::string_view text, const char* op, const std::string& where) {
  if (size_t at = json_too_deep_at(text); at != std::string_view::npos)
    throw FormatError(op, where + ": JSON nests deeper than " + std::to_string(kMaxJsonDepth) + " levels at byte " +
                              std::to_string(at));
  if constexpr (std::is_same_v<Json, nlohmann::ordered_json>) return parse_ordered_json(text, op, where);
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw FormatError(op, where + ": invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const nlohmann::json::exception& e) { throw FormatError(op, where + ": invalid JSON: " + e.what()); }
}

}  // namespace scorch::formats
