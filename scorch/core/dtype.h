#pragma once
// Runtime element types and their compile-time storage types.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scorch/core/half.h"

namespace scorch {

/// Every element type a tensor can hold. Bool is stored as one byte (0 or 1).
enum class DType : uint8_t { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

/// Short lowercase name as Burn and the display print it ("f32", "i64", "bool").
std::string_view dtype_name(DType dtype);
/// Parses a name printed by dtype_name; throws DTypeError for an unknown name.
DType dtype_from_name(std::string_view name);
/// Bytes per element.
size_t dtype_size(DType dtype);
/// True for f64, f32, f16, bf16.
constexpr bool is_float(DType d) { return d <= DType::BF16; }
/// True for the signed and unsigned integer types.
constexpr bool is_int(DType d) { return d >= DType::I64 && d <= DType::U8; }
/// True for Bool.
constexpr bool is_bool(DType d) { return d == DType::Bool; }

/// The storage type of a dtype known at compile time.
template <DType D> struct DTypeStorage;
template <> struct DTypeStorage<DType::F64> { using type = double; };
template <> struct DTypeStorage<DType::F32> { using type = float; };
template <> struct DTypeStorage<DType::F16> { using type = f16; };
template <> struct DTypeStorage<DType::BF16> { using type = bf16; };
template <> struct DTypeStorage<DType::I64> { using type = int64_t; };
template <> struct DTypeStorage<DType::I32> { using type = int32_t; };
template <> struct DTypeStorage<DType::I16> { using type = int16_t; };
template <> struct DTypeStorage<DType::I8> { using type = int8_t; };
template <> struct DTypeStorage<DType::U8> { using type = uint8_t; };
template <> struct DTypeStorage<DType::Bool> { using type = bool; };

/// The dtype of a C++ element type (double → F64, ..., bool → Bool).
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<double>() { return DType::F64; }
template <> constexpr DType dtype_of<float>() { return DType::F32; }
template <> constexpr DType dtype_of<f16>() { return DType::F16; }
template <> constexpr DType dtype_of<bf16>() { return DType::BF16; }
template <> constexpr DType dtype_of<int64_t>() { return DType::I64; }
template <> constexpr DType dtype_of<int32_t>() { return DType::I32; }
template <> constexpr DType dtype_of<int16_t>() { return DType::I16; }
template <> constexpr DType dtype_of<int8_t>() { return DType::I8; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::U8; }
template <> constexpr DType dtype_of<bool>() { return DType::Bool; }

/// Arithmetic type used to compute on a storage type (f16/bf16 compute in float).
template <class T> struct ComputeType { using type = T; };
template <> struct ComputeType<f16> { using type = float; };
template <> struct ComputeType<bf16> { using type = float; };
template <class T> using compute_t = typename ComputeType<T>::type;

/// Calls `f.template operator()<T>()` with T the storage type of dtype.
template <class F> decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::F64: return f.template operator()<double>();
    case DType::F32: return f.template operator()<float>();
    case DType::F16: return f.template operator()<f16>();
    case DType::BF16: return f.template operator()<bf16>();
    case DType::I64: return f.template operator()<int64_t>();
    case DType::I32: return f.template operator()<int32_t>();
    case DType::I16: return f.template operator()<int16_t>();
    case DType::I8: return f.template operator()<int8_t>();
    case DType::U8: return f.template operator()<uint8_t>();
    case DType::Bool: break;
  }
  return f.template operator()<bool>();
}

}  // namespace scorch
