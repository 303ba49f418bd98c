#pragma once
// Param<T>: a module parameter — a tensor with a stable ParamId and a require_grad flag.
// Optimizers key their state by ParamId; records store it so a resumed run finds its state.
#include <cstdint>
#include <string>
#include <utility>

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

/// A tensor the module owns and optimizers update (unless require_grad is off).
template <class T> class Param {
 public:
  using Value = T;
  /// An empty parameter (no tensor yet); assign before use.
  Param() = default;
  /// A new parameter with a fresh id; on an autodiff backend its tensor becomes a tracked leaf.
  explicit Param(T value, bool require_grad = true) : Param(ParamId::make(), std::move(value), require_grad) {}
  /// A parameter with a given id (loading and mapping keep ids).
  Param(ParamId id, T value, bool require_grad = true)
      : id_(id), value_(as_leaf(std::move(value), require_grad)), require_grad_(require_grad) {}

  /// The tensor (a cheap handle copy).
  const T& val() const { return value_; }
  /// The tensor, moved out.
  T into_value() && { return std::move(value_); }
  ParamId id() const { return id_; }
  /// Whether optimizers update this parameter (and autodiff tracks it).
  bool is_require_grad() const { return require_grad_; }
  /// The same parameter with require_grad set: still saved, but skipped by optimizers when false.
  Param set_require_grad(bool require_grad) const { return Param(id_, value_, require_grad); }
  /// The same id and flag with a new tensor (e.g. an optimizer's update); the tensor becomes a fresh leaf.
  Param with_value(T value) const { return Param(id_, std::move(value), require_grad_); }
  /// The same id and flag with f(tensor) as the value.
  template <class F> Param map(F&& f) const { return with_value(f(value_)); }

 private:
  static T as_leaf(T value, bool require_grad) {
    if constexpr (std::same_as<typename T::Kind, Float>) {
      if constexpr (AutodiffBackend<typename T::Backend>) return value.detach().set_require_grad(require_grad);
    }
    return value;
  }

  ParamId id_;
  T value_;
  bool require_grad_ = true;
};

}  // namespace scorch
