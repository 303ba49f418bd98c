#pragma once
// Definitions of OpCall's members and of the kind-generic helpers; included by the op groups' sources, each of
// which is compiled once, on Dyn (every backend runs the interpreter as a Dyn stack: runtime/bridge.h).
#include <cmath>

#include "scorch/dyn/dyn.h"
#include "scorch/import/onnx/runtime/op_helpers.h"
#include "scorch/tensor/checks.h"

/// Instantiates an op group's register function for Dyn.
#define SCORCH_ONNX_INSTANTIATE(register_fn)     \
  namespace scorch::onnx {                       \
  template void register_fn<Dyn>(OpTable<Dyn>&); \
  }

namespace scorch::onnx {

/// Most elements an operator may create from sizes the model gives (ConstantOfShape, Expand, Tile, Pad, Range,
/// Resize, OneHot, ...): 2^28 (1 GiB of f32), so a hostile file cannot make the interpreter allocate without bound.
inline constexpr double kMaxCreatedElements = double(size_t(1) << 28);

/// A ValueError naming the node when an output of `count` elements would pass kMaxCreatedElements.
template <class B> void check_created(const OpCall<B>& c, double count) {
  if (!(count <= kMaxCreatedElements))
    c.template fail<ValueError>("the output would hold " + std::to_string(count) + " elements, above the limit of " +
                                std::to_string(size_t(kMaxCreatedElements)));
}
/// As check_created for an output of shape s (dims multiplied in double, so no product overflows).
template <class B> void check_created(const OpCall<B>& c, const Shape& s) {
  double n = 1;
  for (size_t d : s) n *= double(d);
  check_created(c, n);
}

template <class B> std::string OpCall<B>::where() const {
  std::string name = node_.name.empty() ? "" : "'" + node_.name + "' ";
  return "node " + name + "(" + node_.op_type + ", opset " + std::to_string(opset_) + ")";
}

template <class B> const Value<B>& OpCall<B>::in(size_t i) const {
  if (!has(i)) fail<ValueError>("input " + std::to_string(i) + " is required but not given");
  return *inputs_[i];
}

template <class B> template <class K> typename K::template Primitive<B> OpCall<B>::in_as(size_t i) const {
  const Value<B>& v = in(i);
  if (!v.template is<K>()) fail_dtype(i, v.dtype());
  return v.template get<K>();
}

template <class B> void OpCall<B>::fail_dtype(size_t input, DType dtype) const {
  fail<DTypeError>("input " + std::to_string(input) + " has dtype " + std::string(dtype_name(dtype)) +
                   ", which this operator does not accept");
}

template <class B> std::vector<int64_t> OpCall<B>::host_ints(size_t i) const {
  const Value<B>& v = in(i);
  if (v.template is<Float>()) fail_dtype(i, v.dtype());
  return v.to_data().convert(DType::I64).template to_vector<int64_t>();
}

template <class B> std::vector<double> OpCall<B>::host_doubles(size_t i) const {
  return in(i).to_data().convert(DType::F64).template to_vector<double>();
}

template <class B> const Attribute* OpCall<B>::attr(const std::string& name) const {
  auto it = node_.attributes.find(name);
  return it == node_.attributes.end() ? nullptr : &it->second;
}

template <class B> int64_t OpCall<B>::attr_int(const std::string& name, int64_t fallback) const {
  const Attribute* a = attr(name);
  if (!a) return fallback;
  if (a->kind != Attribute::Kind::Int) fail<ValueError>("attribute '" + name + "' must be an int");
  return a->i;
}

template <class B> double OpCall<B>::attr_float(const std::string& name, double fallback) const {
  const Attribute* a = attr(name);
  if (!a) return fallback;
  if (a->kind == Attribute::Kind::Int) return static_cast<double>(a->i);
  if (a->kind != Attribute::Kind::Float) fail<ValueError>("attribute '" + name + "' must be a float");
  return a->f;
}

template <class B> std::string OpCall<B>::attr_string(const std::string& name, const std::string& fallback) const {
  const Attribute* a = attr(name);
  if (!a) return fallback;
  if (a->kind != Attribute::Kind::String) fail<ValueError>("attribute '" + name + "' must be a string");
  return a->s;
}

template <class B> std::vector<int64_t> OpCall<B>::attr_ints(const std::string& name) const {
  const Attribute* a = attr(name);
  if (!a) return {};
  if (a->kind == Attribute::Kind::Int) return {a->i};
  if (a->kind != Attribute::Kind::Ints) fail<ValueError>("attribute '" + name + "' must be a list of ints");
  return a->ints;
}

template <class B> std::vector<double> OpCall<B>::attr_floats(const std::string& name) const {
  const Attribute* a = attr(name);
  if (!a) return {};
  if (a->kind != Attribute::Kind::Floats) fail<ValueError>("attribute '" + name + "' must be a list of floats");
  return a->floats;
}

template <class B> size_t OpCall<B>::axis(int64_t axis, size_t rank) const {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    fail<ShapeError>("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

/// ONNX's element type number → Scorch dtype, or an error naming it.
template <class B> DType onnx_dtype(const OpCall<B>& c, int64_t type) {
  switch (type) {
    case 1: return DType::F32;
    case 2: return DType::U8;
    case 3: return DType::I8;
    case 5: return DType::I16;
    case 6: return DType::I32;
    case 7: return DType::I64;
    case 9: return DType::Bool;
    case 10: return DType::F16;
    case 11: return DType::F64;
    case 16: return DType::BF16;
    default: break;
  }
  c.template fail<DTypeError>("element type " + element_type_name(static_cast<int32_t>(type)) + " is not supported");
}

template <class B> Value<B> concat(const OpCall<B>& c, const std::vector<Value<B>>& parts, size_t dim) {
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  for (const auto& p : parts) shapes.push_back(p.shape()), dtypes.push_back(p.dtype());
  check::cat(c.op(), shapes, dtypes, dim);
  auto join = [&]<class K>() {
    std::vector<typename K::template Primitive<B>> prims;
    for (const auto& p : parts) prims.push_back(p.template get<K>());
    return Value<B>::template of<K>(KindOps<B, K>::cat(std::move(prims), dim));
  };
  if (parts.front().template is<Float>()) return join.template operator()<Float>();
  if (parts.front().template is<Int>()) return join.template operator()<Int>();
  return join.template operator()<Bool>();
}

template <class B> Value<B> cast(Value<B> v, DType dtype) {
  using V = Value<B>;
  if (v.dtype() == dtype) return v;
  switch (v.kind()) {
    case V::Kind::Float: {
      auto p = std::move(v).template take<Float>();
      if (is_float(dtype)) return V::template of<Float>(KindOps<B, Float>::cast(std::move(p), dtype));
      if (is_int(dtype)) return V::template of<Int>(KindOps<B, Float>::into_int(std::move(p), dtype));
      return V::template of<Bool>(KindOps<B, Float>::not_equal_elem(std::move(p), Scalar(0.0)));
    }
    case V::Kind::Int: {
      auto p = std::move(v).template take<Int>();
      if (is_float(dtype)) return V::template of<Float>(KindOps<B, Int>::into_float(std::move(p), dtype));
      if (is_int(dtype)) return V::template of<Int>(KindOps<B, Int>::cast(std::move(p), dtype));
      return V::template of<Bool>(KindOps<B, Int>::not_equal_elem(std::move(p), Scalar(int64_t{0})));
    }
    default: break;  // Bool (dtype() refused a sequence or optional)
  }
  auto p = std::move(v).template take<Bool>();
  if (is_float(dtype)) return V::template of<Float>(KindOps<B, Bool>::into_float(std::move(p), dtype));
  return V::template of<Int>(KindOps<B, Bool>::into_int(std::move(p), dtype));
}

}  // namespace scorch::onnx
