#pragma once
// Dtype dispatch restricted to a kind, so kernels instantiate only the types they support.
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/error.h"

namespace scorch::backends::cpu {

[[noreturn]] inline void unsupported_dtype(const char* op, DType d) {
  throw DTypeError(op, "dtype " + std::string(dtype_name(d)) + " is not supported");
}

/// Calls f.template operator()<T>() for a float dtype.
template <class F> decltype(auto) visit_float(const char* op, DType d, F&& f) {
  switch (d) {
    case DType::F64: return f.template operator()<double>();
    case DType::F32: return f.template operator()<float>();
    case DType::F16: return f.template operator()<f16>();
    case DType::BF16: return f.template operator()<bf16>();
    default: unsupported_dtype(op, d);
  }
}

/// Calls f.template operator()<T>() for an int dtype.
template <class F> decltype(auto) visit_int(const char* op, DType d, F&& f) {
  switch (d) {
    case DType::I64: return f.template operator()<int64_t>();
    case DType::I32: return f.template operator()<int32_t>();
    case DType::I16: return f.template operator()<int16_t>();
    case DType::I8: return f.template operator()<int8_t>();
    case DType::U8: return f.template operator()<uint8_t>();
    default: unsupported_dtype(op, d);
  }
}

/// Calls f.template operator()<T>() for a float or int dtype.
template <class F> decltype(auto) visit_numeric(const char* op, DType d, F&& f) {
  if (is_float(d)) return visit_float(op, d, std::forward<F>(f));
  return visit_int(op, d, std::forward<F>(f));
}

/// Calls f.template operator()<T>() for any dtype, bool included.
template <class F> decltype(auto) visit_any(const char* op, DType d, F&& f) {
  if (d == DType::Bool) return f.template operator()<bool>();
  return visit_numeric(op, d, std::forward<F>(f));
}

}  // namespace scorch::backends::cpu
