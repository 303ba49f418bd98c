#pragma once
// A value flowing through an ONNX graph on backend B: one primitive of the kind its dtype belongs to (Float, Int or
// Bool). The kind is held explicitly because a backend may use one primitive type for every kind (Cpu does).
#include <utility>
#include <variant>

#include "scorch/backend/concepts.h"
#include "scorch/backend/kind.h"
#include "scorch/core/error.h"
#include "scorch/core/tensor_data.h"
#include "scorch/gen/kind_ops.h"

namespace scorch::onnx {

template <class B> class Value {
 public:
  enum class Kind { Float, Int, Bool };
  /// A value of kind K holding p.
  template <class K> static Value of(typename K::template Primitive<B> p) {
    Value v;
    v.held_.template emplace<index_of<K>()>(std::move(p));
    return v;
  }
  /// The value of data's dtype kind, uploaded to device.
  static Value from_data(TensorData data, const typename B::Device& device);

  Kind kind() const { return static_cast<Kind>(held_.index()); }
  template <class K> bool is() const { return held_.index() == index_of<K>(); }
  /// The primitive; the caller checked is<K>().
  template <class K> const typename K::template Primitive<B>& get() const { return std::get<index_of<K>()>(held_); }
  template <class K> typename K::template Primitive<B> take() && { return std::get<index_of<K>()>(std::move(held_)); }
  Shape shape() const {
    return std::visit([](const auto& p) { return Shape(p.shape()); }, held_);
  }
  DType dtype() const {
    return std::visit([](const auto& p) { return DType(p.dtype()); }, held_);
  }
  /// The values on the host (waits for the device).
  TensorData to_data() const;

 private:
  template <class K> static constexpr size_t index_of() {
    if constexpr (std::is_same_v<K, Float>) return 0;
    else if constexpr (std::is_same_v<K, Int>) return 1;
    else return 2;
  }
  std::variant<typename B::FloatTensor, typename B::IntTensor, typename B::BoolTensor> held_;
};

template <class B> Value<B> Value<B>::from_data(TensorData data, const typename B::Device& device) {
  DType dtype = data.dtype();
  if (is_float(dtype)) return of<Float>(KindOps<B, Float>::from_data(std::move(data), device));
  if (is_int(dtype)) return of<Int>(KindOps<B, Int>::from_data(std::move(data), device));
  return of<Bool>(KindOps<B, Bool>::from_data(std::move(data), device));
}

template <class B> TensorData Value<B>::to_data() const {
  switch (kind()) {
    case Kind::Float: return KindOps<B, Float>::into_data(get<Float>());
    case Kind::Int: return KindOps<B, Int>::into_data(get<Int>());
    case Kind::Bool: break;
  }
  return KindOps<B, Bool>::into_data(get<Bool>());
}

}  // namespace scorch::onnx
