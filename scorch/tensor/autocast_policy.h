#pragma once
// The precision policy the front end applies inside an amp::Autocast scope (the table in docs/mixed-precision.md):
// products (matmul, linear, convolutions, attention) in the autocast dtype; softmax, normalization, sums and
// losses in f32; other ops in their input's dtype, float inputs of different dtypes (binary ops, cat, stack,
// the assign ops) promoted to the widest.
// Outside a scope every helper returns its argument unchanged. f64 is never lowered (as in PyTorch).
#include <concepts>
#include <optional>
#include <utility>
#include <vector>

#include "scorch/core/autocast.h"

namespace scorch::amp {

/// The dtype both operands of a binary op run in: the wider of a and b (f16 with bf16 gives f32).
constexpr DType promoted(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::F64 || b == DType::F64) return DType::F64;
  return DType::F32;
}

/// t in the autocast dtype when a scope is active and t is an f32/f16/bf16 float tensor; t otherwise.
template <class T> T to_autocast(T t) {
  if constexpr (std::same_as<typename T::Kind, Float>) {
    auto low = autocast_dtype();
    if (low && t.dtype() != *low && t.dtype() != DType::F64) return t.cast(*low);
  }
  return t;
}

/// t in f32 when a scope is active and t is an f16/bf16 float tensor; t otherwise.
template <class T> T to_full(T t) {
  if constexpr (std::same_as<typename T::Kind, Float>) {
    if (autocast_dtype() && (t.dtype() == DType::F16 || t.dtype() == DType::BF16)) return t.cast(DType::F32);
  }
  return t;
}

/// t in dtype when a scope is active and t is a float tensor of another dtype; t otherwise.
template <class T> T to_dtype(T t, DType dtype) {
  if constexpr (std::same_as<typename T::Kind, Float>) {
    if (autocast_dtype() && t.dtype() != dtype) return t.cast(dtype);
  }
  return t;
}

/// Float tensors in the widest of their dtypes when a scope is active and they differ (cat, stack); unchanged
/// otherwise.
template <class T> std::vector<T> to_widest(std::vector<T> ts) {
  if constexpr (std::same_as<typename T::Kind, Float>) {
    if (autocast_dtype() && !ts.empty()) {
      DType widest = ts.front().dtype();
      for (const auto& t : ts) widest = promoted(widest, t.dtype());
      for (auto& t : ts) t = to_dtype(std::move(t), widest);
    }
  }
  return ts;
}

/// An optional tensor (a bias, a norm's gamma) under to_autocast.
template <class T> std::optional<T> to_autocast(std::optional<T> t) {
  if (t) t = to_autocast(std::move(*t));
  return t;
}
/// An optional tensor under to_full.
template <class T> std::optional<T> to_full(std::optional<T> t) {
  if (t) t = to_full(std::move(*t));
  return t;
}

/// (a, b) in their promoted dtype when a scope is active and their float dtypes differ; unchanged otherwise.
template <class T, class U> std::pair<T, U> to_common(T a, U b) {
  if constexpr (std::same_as<typename T::Kind, Float> && std::same_as<typename U::Kind, Float>) {
    if (autocast_dtype() && a.dtype() != b.dtype()) {
      DType common = promoted(a.dtype(), b.dtype());
      return {to_dtype(std::move(a), common), to_dtype(std::move(b), common)};
    }
  }
  return {std::move(a), std::move(b)};
}

}  // namespace scorch::amp
