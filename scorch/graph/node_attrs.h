#pragma once
// Reading an ONNX node's attributes with defaults (the compiler's passes and lowering).
#include <cstdint>
#include <string>
#include <vector>

#include "scorch/import/onnx/onnx_model.h"

namespace scorch::graph {

/// The attribute name of n, or nullptr.
inline const onnx::Attribute* attr(const onnx::Node& n, const char* name) {
  auto it = n.attributes.find(name);
  return it == n.attributes.end() ? nullptr : &it->second;
}
inline int64_t attr_int(const onnx::Node& n, const char* name, int64_t fallback) {
  const onnx::Attribute* a = attr(n, name);
  return a ? a->i : fallback;
}
/// A float attribute (an int one converted).
inline double attr_float(const onnx::Node& n, const char* name, double fallback) {
  const onnx::Attribute* a = attr(n, name);
  return a ? (a->kind == onnx::Attribute::Kind::Int ? double(a->i) : a->f) : fallback;
}
inline std::vector<int64_t> attr_ints(const onnx::Node& n, const char* name, std::vector<int64_t> fallback) {
  const onnx::Attribute* a = attr(n, name);
  return a ? a->ints : fallback;
}
inline std::string attr_string(const onnx::Node& n, const char* name, std::string fallback) {
  const onnx::Attribute* a = attr(n, name);
  return a ? a->s : fallback;
}

}  // namespace scorch::graph
