#pragma once
// Tensor kinds (Float, Int, Bool) and the primitive type each kind uses on a backend.
#include <cstddef>
#include <string_view>

#include "scorch/core/dtype.h"

namespace scorch {

/// Floating-point tensors (f64, f32, f16, bf16); the default kind.
struct Float {
  static constexpr std::string_view name = "Float";
  static constexpr size_t index = 0;  // its place in variants over the kinds (Float, Int, Bool)
  static constexpr DType default_dtype = DType::F32;
  template <class B> using Primitive = typename B::FloatTensor;
};
/// Integer tensors (i64, i32, i16, i8, u8).
struct Int {
  static constexpr std::string_view name = "Int";
  static constexpr size_t index = 1;  // its place in variants over the kinds (Float, Int, Bool)
  static constexpr DType default_dtype = DType::I64;
  template <class B> using Primitive = typename B::IntTensor;
};
/// Boolean tensors.
struct Bool {
  static constexpr std::string_view name = "Bool";
  static constexpr size_t index = 2;  // its place in variants over the kinds (Float, Int, Bool)
  static constexpr DType default_dtype = DType::Bool;
  template <class B> using Primitive = typename B::BoolTensor;
};

/// True when dtype belongs to kind K.
template <class K> constexpr bool dtype_fits_kind(DType d) {
  if constexpr (std::is_same_v<K, Float>) return is_float(d);
  else if constexpr (std::is_same_v<K, Int>) return is_int(d);
  else return is_bool(d);
}

}  // namespace scorch
