#pragma once
// Param<T>: a module parameter — a tensor with a stable ParamId and a require_grad flag.
// Optimizers key their state by ParamId; records store it so a resumed run finds its state.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "scorch/tensor/quantized.h"
#include "scorch/tensor/tensor.h"

namespace scorch {

/// A parameter's identity: unique within a process, kept across save and load.
class ParamId {
 public:
  ParamId() = default;
  explicit ParamId(uint64_t value) : value_(value) {}
  /// A fresh id, never 0 and never repeated in this process.
  static ParamId make();
  uint64_t value() const { return value_; }
  /// True for ids made by make() or loaded from a record; false for the default (no id).
  bool valid() const { return value_ != 0; }
  /// Sixteen lowercase hex digits.
  std::string to_string() const;
  /// Parses to_string's form; throws FormatError otherwise.
  static ParamId parse(const std::string& text);
  friend bool operator==(ParamId, ParamId) = default;
  friend auto operator<=>(ParamId, ParamId) = default;

 private:
  uint64_t value_ = 0;
};

namespace detail {
/// The quantized form a parameter of type T may hold: QTensor for float tensors, nothing otherwise.
template <class T> struct QuantizedOf { using type = void; };
template <class B, size_t D> struct QuantizedOf<Tensor<B, D, Float>> { using type = QTensor<B, D>; };
}  // namespace detail

/// A tensor the module owns and optimizers update (unless require_grad is off). A float parameter may instead hold
/// its values quantized (QTensor): val() then dequantizes, and layers with integer kernels (Linear) use quantized().
template <class T> class Param {
 public:
  using Value = T;
  using Quantized = typename detail::QuantizedOf<T>::type;
  /// An empty parameter (no tensor yet); assign before use.
  Param() = default;
  /// A new parameter with a fresh id; on an autodiff backend its tensor becomes a tracked leaf.
  explicit Param(T value, bool require_grad = true) : Param(ParamId::make(), std::move(value), require_grad) {}
  /// A parameter with a given id (loading and mapping keep ids).
  Param(ParamId id, T value, bool require_grad = true)
      : id_(id), value_(as_leaf(std::move(value), require_grad)), require_grad_(require_grad) {}

  /// A quantized parameter with a given id; optimizers skip it.
  Param(ParamId id, Quantized quantized) requires(!std::is_void_v<Quantized>)
      : id_(id), quantized_(std::make_shared<const Quantized>(std::move(quantized))), require_grad_(false) {}

  /// The tensor (a cheap handle copy; dequantized in f32 when the parameter is quantized).
  T val() const {
    if constexpr (!std::is_void_v<Quantized>)
      if (quantized_) return quantized_->dequantize();
    return value_;
  }
  /// The tensor, moved out.
  T into_value() && {
    if constexpr (!std::is_void_v<Quantized>)
      if (quantized_) return quantized_->dequantize();
    return std::move(value_);
  }
  /// Whether the parameter holds quantized values.
  bool is_quantized() const { return quantized_ != nullptr; }
  /// The quantized values; only when is_quantized().
  const auto& quantized() const requires(!std::is_void_v<Quantized>) { return *quantized_; }
  /// The same id holding q (require_grad off).
  Param with_quantized(Quantized q) const requires(!std::is_void_v<Quantized>) { return Param(id_, std::move(q)); }
  /// The tensor's shape without dequantizing.
  Shape shape() const {
    if constexpr (!std::is_void_v<Quantized>)
      if (quantized_) return quantized_->shape();
    return value_.shape();
  }
  /// The tensor's dtype without dequantizing (a quantized parameter's float dtype).
  DType dtype() const {
    if constexpr (!std::is_void_v<Quantized>)
      if (quantized_) return quantized_->dtype;
    return value_.dtype();
  }
  /// The tensor's device without dequantizing.
  auto device() const {
    if constexpr (!std::is_void_v<Quantized>)
      if (quantized_) return quantized_->device();
    return value_.device();
  }
  /// The parameter with f applied to each of its tensors (each part of a quantized one); f must take every kind.
  template <class F> auto map_parts(F&& f) const {
    using Out = decltype(f(value_));
    if constexpr (!std::is_void_v<Quantized>)
      if (quantized_) return Param<Out>(id_, quantized_->map(f));
    return Param<Out>(id_, f(value_), require_grad_);
  }
  ParamId id() const { return id_; }
  /// Whether optimizers update this parameter (and autodiff tracks it).
  bool is_require_grad() const { return require_grad_; }
  /// The same parameter with require_grad set: still saved, but skipped by optimizers when false.
  Param set_require_grad(bool require_grad) const {
    if (quantized_) return *this;
    return Param(id_, value_, require_grad);
  }
  /// The same id and flag with a new tensor (e.g. an optimizer's update); the tensor becomes a fresh leaf.
  Param with_value(T value) const { return Param(id_, std::move(value), require_grad_); }
  /// The same id and flag with f(tensor) as the value (a quantized parameter's dequantized tensor).
  template <class F> Param map(F&& f) const { return with_value(f(val())); }

 private:
  static T as_leaf(T value, bool require_grad) {
    if constexpr (std::same_as<typename T::Kind, Float>) {
      if constexpr (AutodiffBackend<typename T::Backend>) return value.detach().set_require_grad(require_grad);
    }
    return value;
  }

  ParamId id_;
  T value_;
  std::shared_ptr<const std::conditional_t<std::is_void_v<Quantized>, int, Quantized>> quantized_;
  bool require_grad_ = true;
};

}  // namespace scorch
