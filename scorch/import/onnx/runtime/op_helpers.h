#pragma once
// Kind-generic helpers the operator groups share: dispatch on a value's kind, ONNX's multidirectional broadcasting
// (ranks aligned on the right), casts between any two dtypes, and layout ops on values of any kind.
#include <numeric>

#include "scorch/import/onnx/runtime/op_call.h"
#include "scorch/tensor/checks.h"

namespace scorch::onnx {

/// `fn.template operator()<K>(primitive)` for the value's kind K; fn returns a Value.
template <class B, class Fn> Value<B> visit_kind(Value<B> v, Fn&& fn) {
  v.dtype();  // a ValueError for a sequence or optional
  switch (v.kind()) {
    case Value<B>::Kind::Float: return fn.template operator()<Float>(std::move(v).template take<Float>());
    case Value<B>::Kind::Int: return fn.template operator()<Int>(std::move(v).template take<Int>());
    default: break;
  }
  return fn.template operator()<Bool>(std::move(v).template take<Bool>());
}

/// As visit_kind for Float and Int values; a bool value is a dtype error naming input.
template <class B, class Fn> Value<B> visit_numeric(const OpCall<B>& c, size_t input, Value<B> v, Fn&& fn) {
  if (v.template is<Float>()) return fn.template operator()<Float>(std::move(v).template take<Float>());
  if (v.template is<Int>()) return fn.template operator()<Int>(std::move(v).template take<Int>());
  c.fail_dtype(input, v.dtype());
}

/// v seen with shape (a ShapeError unless the element counts agree).
template <class B> Value<B> reshape(Value<B> v, const Shape& shape) {
  check::same_element_count("onnx reshape", v.shape(), shape);
  return visit_kind(std::move(v),
                    [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::reshape(p, shape)); });
}
template <class B> Value<B> permute(Value<B> v, const std::vector<size_t>& axes) {
  return visit_kind(std::move(v),
                    [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::permute(p, axes)); });
}
template <class B> Value<B> expand(Value<B> v, const Shape& shape) {
  return visit_kind(std::move(v),
                    [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::expand(p, shape)); });
}
/// Checks that ranges (one per dim) lie inside shape: start <= end <= dim, step != 0.
inline void check_ranges(const Shape& shape, const SliceRanges& ranges) {
  bool ok = ranges.size() == shape.rank();
  for (size_t i = 0; ok && i < ranges.size(); ++i)
    ok = ranges[i].step != 0 && ranges[i].start <= ranges[i].end && ranges[i].end <= shape[i];
  if (!ok) throw ShapeError("onnx slice", "ranges do not fit shape " + shape.to_string());
}
/// The part of v that ranges select (checked).
template <class B> Value<B> slice(Value<B> v, const SliceRanges& ranges) {
  check_ranges(v.shape(), ranges);
  return visit_kind(std::move(v),
                    [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::slice(p, ranges)); });
}
template <class B> Value<B> flip(Value<B> v, const std::vector<size_t>& axes) {
  return visit_kind(std::move(v),
                    [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::flip(p, axes)); });
}
/// Values of one dtype joined along dim.
template <class B> Value<B> concat(const OpCall<B>& c, const std::vector<Value<B>>& parts, size_t dim);
/// Rows of v along dim picked by int indices (each in range).
template <class B> Value<B> select(Value<B> v, size_t dim, typename B::IntTensor indices) {
  return visit_kind(std::move(v),
                    [&]<class K>(auto p) { return Value<B>::template of<K>(KindOps<B, K>::select(p, dim, indices)); });
}
/// v with ones prepended to reach rank.
template <class B> Value<B> left_pad_rank(Value<B> v, size_t rank) {
  Shape s = v.shape();
  if (s.rank() >= rank) return v;
  Shape padded;
  for (size_t i = s.rank(); i < rank; ++i) padded.push_back(1);
  for (size_t d : s) padded.push_back(d);
  return reshape(std::move(v), padded);
}
/// The shape a and b broadcast to under ONNX's rules (right-aligned; equal dims or 1).
inline Shape broadcast_shape(const char* op, const Shape& a, const Shape& b) {
  size_t rank = std::max(a.rank(), b.rank());
  Shape pa, pb;
  for (size_t i = 0; i < rank; ++i) {
    pa.push_back(i < rank - a.rank() ? 1 : a[i - (rank - a.rank())]);
    pb.push_back(i < rank - b.rank() ? 1 : b[i - (rank - b.rank())]);
  }
  return broadcast_shapes(op, pa, pb);
}
/// a and b brought to one rank (their dims still broadcast, as the backend's binary ops take them).
template <class B> std::pair<Value<B>, Value<B>> align_ranks(const OpCall<B>& c, Value<B> a, Value<B> b) {
  broadcast_shape(c.op(), a.shape(), b.shape());
  size_t rank = std::max(a.shape().rank(), b.shape().rank());
  return {left_pad_rank(std::move(a), rank), left_pad_rank(std::move(b), rank)};
}
/// v converted to dtype (any kind to any kind; to bool is "not zero").
template <class B> Value<B> cast(Value<B> v, DType dtype);
/// An int64 tensor of the given values and shape on the call's device.
template <class B> Value<B> int_tensor(const OpCall<B>& c, std::vector<int64_t> values, Shape shape) {
  return Value<B>::from_data(TensorData(values, shape), c.device());
}
/// Shape with dim `axis` removed.
inline Shape without_dim(Shape s, size_t axis) {
  s.remove(axis);
  return s;
}
/// Axes resolved against rank (negative ones counted from the end).
template <class B> std::vector<size_t> resolve_axes(const OpCall<B>& c, const std::vector<int64_t>& raw, size_t rank) {
  std::vector<size_t> out;
  for (int64_t a : raw) out.push_back(c.axis(a, rank));
  return out;
}
/// The axes attribute resolved against rank; empty when absent.
template <class B> std::vector<size_t> axes_attr(const OpCall<B>& c, size_t rank) {
  return resolve_axes(c, c.attr_ints("axes"), rank);
}
/// ONNX's axes input (newer opsets) or else attribute, resolved against rank; empty when neither is given.
template <class B> std::vector<size_t> axes_of(const OpCall<B>& c, size_t input, size_t rank) {
  return c.has(input) ? resolve_axes(c, c.host_ints(input), rank) : axes_attr(c, rank);
}
/// s without the dims listed in axes (a reduction's keepdims = 0).
inline Shape without_dims(const Shape& s, const std::vector<size_t>& axes) {
  Shape out;
  for (size_t i = 0; i < s.rank(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) out.push_back(s[i]);
  return out;
}

}  // namespace scorch::onnx
