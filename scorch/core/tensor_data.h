#pragma once
// TensorData: a tensor's values on the host as little-endian row-major bytes, a shape and a dtype.
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "scorch/core/value_members.h"
#include "scorch/core/dtype.h"
#include "scorch/core/error.h"
#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"

namespace scorch {

/// How close two values must be: |x-y| <= max(absolute, relative*max(|x|,|y|)), or exactly equal.
struct Tolerance {
  double relative = 5e-3;
  double absolute = 1e-5;
  /// Bit-level closeness for exact kernels.
  static constexpr Tolerance strict() { return {0.0, 1e-30}; }
  /// The default: 0.5 % relative, 1e-5 absolute.
  static constexpr Tolerance balanced() { return {5e-3, 1e-5}; }
  /// 1 % relative, 0.01 absolute.
  static constexpr Tolerance permissive() { return {1e-2, 1e-2}; }
  static constexpr Tolerance rel_abs(double r, double a) { return {r, a}; }
};

/// Host-side tensor values; a plain value type, cheap to move.
class TensorData {
 public:
  SCORCH_VALUE_MEMBERS(TensorData);  // defaulted in the .cpp
  /// Copies values of storage type T (double, float, f16, ..., bool); throws if the count mismatches shape.
  template <class T> TensorData(const std::vector<T>& values, Shape shape);
  template <class T> TensorData(std::initializer_list<T> values, Shape shape)
      : TensorData(std::vector<T>(values), shape) {}
  /// Takes raw little-endian bytes; throws FormatError if their length does not match shape and dtype.
  static TensorData from_bytes(std::vector<std::byte> bytes, Shape shape, DType dtype);
  /// A tensor of shape filled with value converted to dtype.
  static TensorData full(Shape shape, Scalar value, DType dtype);
  static TensorData zeros(Shape shape, DType dtype) { return full(shape, Scalar(0), dtype); }

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  size_t num_elements() const { return shape_.num_elements(); }
  std::span<const std::byte> bytes() const { return bytes_; }
  std::span<std::byte> bytes_mut() { return bytes_; }
  std::vector<std::byte> into_bytes() && { return std::move(bytes_); }

  /// The values viewed as T; throws DTypeError unless T is this dtype's storage type.
  template <class T> std::span<const T> as_span() const;
  template <class T> std::span<T> as_mut_span();
  /// The values converted to T (f16/bf16 round to nearest, floats truncate to ints, nonzero → true).
  template <class T> std::vector<T> to_vector() const;
  /// A copy converted to dtype.
  TensorData convert(DType dtype) const;
  /// Value i as a Scalar of this dtype's kind.
  Scalar scalar_at(size_t i) const;
  /// Value i converted to double.
  double value_at(size_t i) const;

  /// Throws AssertionError unless shapes, values and (if strict) dtypes are equal.
  void assert_eq(const TensorData& other, bool strict = true) const;
  /// Throws AssertionError unless shapes match and every pair of values is within tolerance.
  void assert_approx_eq(const TensorData& other, Tolerance tolerance = Tolerance::balanced()) const;
  /// Equal shapes, dtypes and bytes.
  friend bool operator==(const TensorData& a, const TensorData& b) {
    return a.dtype_ == b.dtype_ && a.shape_ == b.shape_ && a.bytes_ == b.bytes_;
  }

 private:
  std::vector<std::byte> bytes_;
  Shape shape_;
  DType dtype_ = DType::F32;
};

/// Two data that should be equal are not.
class AssertionError : public Error {
  using Error::Error;
};

/// Copies n values from src (storage dtype from) to dst (storage dtype to), converting each.
void convert_elements(const std::byte* src, DType from, std::byte* dst, DType to, size_t n);

template <class T> TensorData::TensorData(const std::vector<T>& values, Shape shape)
    : shape_(shape), dtype_(dtype_of<T>()) {
  if (values.size() != shape.num_elements())
    throw ShapeError("TensorData", std::to_string(values.size()) + " values do not fill shape " + shape.to_string());
  bytes_.resize(values.size() * sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size(); ++i) bytes_[i] = std::byte(values[i] ? 1 : 0);
  } else if (!values.empty()) {
    std::memcpy(bytes_.data(), values.data(), bytes_.size());
  }
}

template <class T> std::span<const T> TensorData::as_span() const {
  if (dtype_of<T>() != dtype_)
    throw DTypeError("TensorData::as_span",
                     "data is " + std::string(dtype_name(dtype_)) + ", not " + std::string(dtype_name(dtype_of<T>())));
  return {reinterpret_cast<const T*>(bytes_.data()), num_elements()};
}

template <class T> std::span<T> TensorData::as_mut_span() {
  if (dtype_of<T>() != dtype_)
    throw DTypeError("TensorData::as_mut_span",
                     "data is " + std::string(dtype_name(dtype_)) + ", not " + std::string(dtype_name(dtype_of<T>())));
  return {reinterpret_cast<T*>(bytes_.data()), num_elements()};
}

template <class T> std::vector<T> TensorData::to_vector() const {
  std::vector<T> out(num_elements());
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> tmp(num_elements());
    convert_elements(bytes_.data(), dtype_, reinterpret_cast<std::byte*>(tmp.data()), DType::Bool, tmp.size());
    for (size_t i = 0; i < tmp.size(); ++i) out[i] = tmp[i] != 0;
  } else {
    convert_elements(bytes_.data(), dtype_, reinterpret_cast<std::byte*>(out.data()), dtype_of<T>(), out.size());
  }
  return out;
}

/// Applies X(T) to every storage type; TensorData's typed constructor and to_vector are compiled for each in
/// tensor_data.cpp.
#define SCORCH_TENSOR_DATA_TYPES(X) \
  X(double) X(float) X(f16) X(bf16) X(int64_t) X(int32_t) X(int16_t) X(int8_t) X(uint8_t) X(bool)
#define SCORCH_TENSOR_DATA_EXTERN(T)                                    \
  extern template TensorData::TensorData(const std::vector<T>&, Shape); \
  extern template std::vector<T> TensorData::to_vector<T>() const;
SCORCH_TENSOR_DATA_TYPES(SCORCH_TENSOR_DATA_EXTERN)
#undef SCORCH_TENSOR_DATA_EXTERN

}  // namespace scorch
