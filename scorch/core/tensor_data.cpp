#include "scorch/core/tensor_data.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace scorch {

SCORCH_DEFAULT_VALUE_MEMBERS(TensorData);

#define SCORCH_TENSOR_DATA_DEFINE(T)                             \
  template TensorData::TensorData(const std::vector<T>&, Shape); \
  template std::vector<T> TensorData::to_vector<T>() const;
SCORCH_TENSOR_DATA_TYPES(SCORCH_TENSOR_DATA_DEFINE)
#undef SCORCH_TENSOR_DATA_DEFINE
namespace {

template <class To, class From> To convert_one(From v) {
  if constexpr (std::is_same_v<To, bool>) return static_cast<compute_t<From>>(v) != compute_t<From>(0);
  else if constexpr (std::is_same_v<To, f16> || std::is_same_v<To, bf16>) return To(static_cast<float>(v));
  else if constexpr (std::is_integral_v<To> && !std::is_integral_v<compute_t<From>>) {
    auto x = static_cast<double>(static_cast<compute_t<From>>(v));  // float → int: truncate, saturate; NaN → 0
    if (std::isnan(x)) return To(0);
    if (x <= static_cast<double>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (x >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else return static_cast<To>(static_cast<compute_t<From>>(v));
}

bool values_close(double x, double y, Tolerance tol) {
  if (x == y) return true;
  if (std::isnan(x) && std::isnan(y)) return true;
  if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) return false;
  double bound = std::max(tol.absolute, tol.relative * std::max(std::fabs(x), std::fabs(y)));
  return std::fabs(x - y) <= bound;
}

std::string mismatch_report(const char* op, const std::vector<size_t>& bad, const TensorData& a, const TensorData& b) {
  std::ostringstream s;
  s << bad.size() << " of " << a.num_elements() << " values differ";
  for (size_t k = 0; k < bad.size() && k < 8; ++k)
    s << "; at " << bad[k] << ": " << a.value_at(bad[k]) << " vs " << b.value_at(bad[k]);
  return s.str();
}

}  // namespace

void convert_elements(const std::byte* src, DType from, std::byte* dst, DType to, size_t n) {
  if (from == to) {
    if (n) std::memcpy(dst, src, n * dtype_size(from));
    return;
  }
  visit_dtype(from, [&]<class F>() {
    visit_dtype(to, [&]<class T>() {
      const F* s = reinterpret_cast<const F*>(src);
      if constexpr (std::is_same_v<T, bool>) {
        for (size_t i = 0; i < n; ++i) dst[i] = std::byte(convert_one<bool>(s[i]) ? 1 : 0);
      } else {
        T* d = reinterpret_cast<T*>(dst);
        for (size_t i = 0; i < n; ++i) d[i] = convert_one<T>(s[i]);
      }
    });
  });
}

TensorData TensorData::from_bytes(std::vector<std::byte> bytes, Shape shape, DType dtype) {
  auto checked = shape.checked_num_bytes(dtype_size(dtype));
  if (!checked)
    throw FormatError("TensorData::from_bytes", "shape " + shape.to_string() + " of " + std::string(dtype_name(dtype)) +
                                                    " overflows the element count");
  size_t expected = *checked;
  if (bytes.size() != expected)
    throw FormatError("TensorData::from_bytes", std::to_string(bytes.size()) + " bytes given, shape " +
                                                    shape.to_string() + " of " + std::string(dtype_name(dtype)) +
                                                    " needs " + std::to_string(expected));
  TensorData d;
  d.bytes_ = std::move(bytes);
  d.shape_ = shape;
  d.dtype_ = dtype;
  return d;
}

TensorData TensorData::full(Shape shape, Scalar value, DType dtype) {
  auto checked = shape.checked_num_bytes(dtype_size(dtype));
  if (!checked)
    throw ShapeError("TensorData::full", "shape " + shape.to_string() + " of " + std::string(dtype_name(dtype)) +
                                             " overflows the element count");
  TensorData d;
  d.shape_ = shape;
  d.dtype_ = dtype;
  d.bytes_.resize(*checked);
  visit_dtype(dtype, [&]<class T>() {
    T v = value.as<T>();
    for (size_t i = 0; i < d.num_elements(); ++i) std::memcpy(d.bytes_.data() + i * sizeof(T), &v, sizeof(T));
  });
  return d;
}

TensorData TensorData::convert(DType dtype) const {
  TensorData d;
  d.shape_ = shape_;
  d.dtype_ = dtype;
  d.bytes_.resize(num_elements() * dtype_size(dtype));
  convert_elements(bytes_.data(), dtype_, d.bytes_.data(), dtype, num_elements());
  return d;
}

double TensorData::value_at(size_t i) const {
  return visit_dtype(dtype_, [&]<class T>() -> double {
    T v;
    std::memcpy(&v, bytes_.data() + i * sizeof(T), sizeof(T));
    return static_cast<double>(static_cast<compute_t<T>>(v));
  });
}

Scalar TensorData::scalar_at(size_t i) const {
  double v = value_at(i);
  if (is_float(dtype_)) return Scalar(v);
  if (is_bool(dtype_)) return Scalar(v != 0.0);
  return visit_dtype(dtype_, [&]<class T>() -> Scalar {
    T x;
    std::memcpy(&x, bytes_.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return Scalar(static_cast<int64_t>(x));
    else return Scalar(v);
  });
}

void TensorData::assert_eq(const TensorData& other, bool strict) const {
  if (strict && dtype_ != other.dtype_)
    throw AssertionError("assert_eq", "dtypes differ: " + std::string(dtype_name(dtype_)) + " vs " +
                                          std::string(dtype_name(other.dtype_)));
  if (!(shape_ == other.shape_))
    throw AssertionError("assert_eq", "shapes differ: " + shape_.to_string() + " vs " + other.shape_.to_string());
  std::vector<size_t> bad;
  for (size_t i = 0; i < num_elements(); ++i) {
    double x = value_at(i), y = other.value_at(i);
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) bad.push_back(i);
  }
  if (!bad.empty()) throw AssertionError("assert_eq", mismatch_report("assert_eq", bad, *this, other));
}

void TensorData::assert_approx_eq(const TensorData& other, Tolerance tolerance) const {
  if (!(shape_ == other.shape_))
    throw AssertionError("assert_approx_eq",
                         "shapes differ: " + shape_.to_string() + " vs " + other.shape_.to_string());
  std::vector<size_t> bad;
  for (size_t i = 0; i < num_elements(); ++i)
    if (!values_close(value_at(i), other.value_at(i), tolerance)) bad.push_back(i);
  if (!bad.empty()) throw AssertionError("assert_approx_eq", mismatch_report("assert_approx_eq", bad, *this, other));
}

}  // namespace scorch
