#pragma once
// Scalar: one value type for every scalar operand (float, int or bool), so ops need no per-type overloads.
#include <concepts>
#include <cstdint>
#include <string>

#include "scorch/core/half.h"

namespace scorch {

/// A scalar operand; remembers whether it was given as float, int or bool.
class Scalar {
 public:
  enum class Kind : uint8_t { Float, Int, Bool };
  Scalar() = default;
  template <std::floating_point T> Scalar(T v) : kind_(Kind::Float), f_(static_cast<double>(v)) {}
  template <std::integral T>
  requires(!std::same_as<T, bool>) Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v ? 1 : 0) {}
  Scalar(f16 v) : Scalar(static_cast<float>(v)) {}
  Scalar(bf16 v) : Scalar(static_cast<float>(v)) {}

  Kind kind() const { return kind_; }
  bool is_float() const { return kind_ == Kind::Float; }
  /// The value as a double (ints convert exactly up to 2^53).
  double to_double() const { return kind_ == Kind::Float ? f_ : static_cast<double>(i_); }
  /// The value as an int64, truncating a float toward zero (saturating past int64's range; NaN is 0).
  int64_t to_int() const { return kind_ == Kind::Float ? saturated_int(f_) : i_; }
  /// v truncated toward zero and clamped to int64's range; NaN is 0.
  static int64_t saturated_int(double v) {
    if (!(v == v)) return 0;
    if (v >= 9223372036854775808.0) return INT64_MAX;
    if (v < -9223372036854775808.0) return INT64_MIN;
    return static_cast<int64_t>(v);
  }
  bool to_bool() const { return kind_ == Kind::Float ? f_ != 0.0 : i_ != 0; }
  /// The value converted to a storage type T (f16/bf16 round to nearest).
  template <class T> T as() const {
    if constexpr (std::same_as<T, bool>) return to_bool();
    else if constexpr (std::integral<T>) return static_cast<T>(to_int());
    else if constexpr (std::same_as<T, f16> || std::same_as<T, bf16>) return T(static_cast<float>(to_double()));
    else return static_cast<T>(to_double());
  }
  std::string to_string() const;

 private:
  Kind kind_ = Kind::Float;
  double f_ = 0.0;
  int64_t i_ = 0;
};

inline std::string Scalar::to_string() const {
  if (kind_ == Kind::Bool) return i_ ? "true" : "false";
  return kind_ == Kind::Float ? std::to_string(f_) : std::to_string(i_);
}

}  // namespace scorch
