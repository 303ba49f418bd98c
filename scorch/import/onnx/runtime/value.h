#pragma once
// A value flowing through an ONNX graph on backend B: one primitive of the kind its dtype belongs to (Float, Int or
// Bool), or a sequence or optional of values. The kind is held explicitly because a backend may use one primitive
// type for every kind (Cpu does).
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "scorch/backend/concepts.h"
#include "scorch/backend/kind.h"
#include "scorch/core/error.h"
#include "scorch/core/tensor_data.h"
#include "scorch/gen/kind_ops.h"

namespace scorch::onnx {

template <class B> class Value {
 public:
  enum class Kind { Float, Int, Bool, Sequence, Optional };
  /// A value of kind K holding p.
  template <class K> static Value of(typename K::template Primitive<B> p) {
    Value v;
    v.held_.template emplace<index_of<K>()>(std::move(p));
    return v;
  }
  /// A sequence of values whose tensors have element_dtype (known when it is empty).
  static Value sequence(std::vector<Value> elements, DType element_dtype) {
    return container(Kind::Sequence, std::move(elements), element_dtype);
  }
  /// An optional holding element, or empty (element_dtype: of the tensors it would hold).
  static Value optional(std::optional<Value> element, DType element_dtype) {
    std::vector<Value> elements;
    if (element) elements.push_back(std::move(*element));
    return container(Kind::Optional, std::move(elements), element_dtype);
  }
  /// The value of data's dtype kind, uploaded to device.
  static Value from_data(TensorData data, const typename B::Device& device);

  Kind kind() const { return container_ ? container_->kind : static_cast<Kind>(held_.index()); }
  /// False for a sequence or optional.
  bool is_tensor() const { return !container_; }
  template <class K> bool is() const { return !container_ && held_.index() == index_of<K>(); }
  /// The primitive; the caller checked `is<K>()`.
  template <class K> const typename K::template Primitive<B>& get() const { return std::get<index_of<K>()>(held_); }
  template <class K> typename K::template Primitive<B> take() && { return std::get<index_of<K>()>(std::move(held_)); }
  /// A tensor's shape and dtype; a ValueError for a sequence or optional.
  Shape shape() const {
    return std::visit([](const auto& p) { return Shape(p.shape()); }, tensor_held());
  }
  DType dtype() const {
    return std::visit([](const auto& p) { return DType(p.dtype()); }, tensor_held());
  }
  /// A sequence's elements, an optional's value (none or one); a ValueError for a tensor.
  const std::vector<Value>& elements() const {
    if (!container_) throw ValueError("onnx", "a tensor where a sequence or optional is expected");
    return container_->elements;
  }
  /// The elements, moved out when no other value shares them (else copied).
  std::vector<Value> take_elements() && {
    elements();
    if (container_.use_count() == 1) return std::move(container_->elements);
    return container_->elements;
  }
  /// The dtype of a sequence's or optional's tensors.
  DType element_dtype() const {
    elements();
    return container_->element_dtype;
  }
  /// A tensor's values on the host (waits for the device).
  TensorData to_data() const;

 private:
  struct Container {
    Kind kind;
    std::vector<Value> elements;
    DType element_dtype;
  };
  static Value container(Kind kind, std::vector<Value> elements, DType element_dtype) {
    Value v;
    v.container_ = std::make_shared<Container>(Container{kind, std::move(elements), element_dtype});
    return v;
  }
  const auto& tensor_held() const {
    if (container_) throw ValueError("onnx", "a sequence or optional where a tensor is expected");
    return held_;
  }

  template <class K> static constexpr size_t index_of() {
    if constexpr (std::is_same_v<K, Float>) return 0;
    else if constexpr (std::is_same_v<K, Int>) return 1;
    else return 2;
  }
  std::shared_ptr<Container> container_;  // set for a sequence or optional (held_ unused); never changed once shared
  std::variant<typename B::FloatTensor, typename B::IntTensor, typename B::BoolTensor> held_;
};

template <class B> Value<B> Value<B>::from_data(TensorData data, const typename B::Device& device) {
  DType dtype = data.dtype();
  if (is_float(dtype)) return of<Float>(KindOps<B, Float>::from_data(std::move(data), device));
  if (is_int(dtype)) return of<Int>(KindOps<B, Int>::from_data(std::move(data), device));
  return of<Bool>(KindOps<B, Bool>::from_data(std::move(data), device));
}

template <class B> TensorData Value<B>::to_data() const {
  tensor_held();
  switch (kind()) {
    case Kind::Float: return KindOps<B, Float>::into_data(get<Float>());
    case Kind::Int: return KindOps<B, Int>::into_data(get<Int>());
    default: break;
  }
  return KindOps<B, Bool>::into_data(get<Bool>());
}

}  // namespace scorch::onnx
