#pragma once
// Provided elementwise ops: negation, sign, powers, NaN/inf tests, inequality, clamps.
#include <limits>

#include "scorch/core/scalar.h"

namespace scorch {
template <class B, class K> struct KindOps;
struct Float;
struct Int;
struct Bool;

namespace provided {

template <class B, class K, class T> auto neg_of(T x) { return KindOps<B, K>::mul_scalar(std::move(x), Scalar(-1)); }
template <class B> auto float_neg(typename B::FloatTensor x) { return neg_of<B, Float>(std::move(x)); }
template <class B> auto int_neg(typename B::IntTensor x) { return neg_of<B, Int>(std::move(x)); }

template <class B, class K, class T> T sign_of(T x) {
  DType dtype = x.dtype();
  auto to_kind = [&](typename B::BoolTensor m) {
    if constexpr (std::is_same_v<K, Float>) return KindOps<B, Bool>::into_float(std::move(m), dtype);
    else return KindOps<B, Bool>::into_int(std::move(m), dtype);
  };
  auto pos = to_kind(KindOps<B, K>::greater_elem(x, Scalar(0)));
  auto neg = to_kind(KindOps<B, K>::lower_elem(x, Scalar(0)));
  return KindOps<B, K>::sub(std::move(pos), std::move(neg));
}
/// -1, 0 or 1 by the sign of each value.
template <class B> auto float_sign(typename B::FloatTensor x) { return sign_of<B, Float>(std::move(x)); }
template <class B> auto int_sign(typename B::IntTensor x) { return sign_of<B, Int>(std::move(x)); }

/// x^y with integer exponents, computed in float.
template <class B> auto float_powi(typename B::FloatTensor x, typename B::IntTensor y) {
  DType dtype = x.dtype();
  return KindOps<B, Float>::powf(std::move(x), KindOps<B, Int>::into_float(std::move(y), dtype));
}
template <class B> auto int_powi(typename B::IntTensor x, typename B::IntTensor y) {
  DType dtype = x.dtype();
  auto fx = KindOps<B, Int>::into_float(std::move(x), DType::F64);
  auto fy = KindOps<B, Int>::into_float(std::move(y), DType::F64);
  return KindOps<B, Float>::into_int(KindOps<B, Float>::round(KindOps<B, Float>::powf(std::move(fx), std::move(fy))),
                                     dtype);
}
template <class B> auto int_powi_scalar(typename B::IntTensor x, Scalar y) {
  DType dtype = x.dtype();
  auto fx = KindOps<B, Int>::into_float(std::move(x), DType::F64);
  return KindOps<B, Float>::into_int(KindOps<B, Float>::round(KindOps<B, Float>::powf_scalar(std::move(fx), y)), dtype);
}

/// True where a value is NaN (x != x).
template <class B> auto float_is_nan(typename B::FloatTensor x) { return KindOps<B, Float>::not_equal(x, x); }
/// True where a value is +inf or -inf.
template <class B> auto float_is_inf(typename B::FloatTensor x) {
  return KindOps<B, Float>::equal_elem(KindOps<B, Float>::abs(std::move(x)),
                                       Scalar(std::numeric_limits<double>::infinity()));
}

template <class B> auto float_not_equal(typename B::FloatTensor a, typename B::FloatTensor b) {
  return KindOps<B, Bool>::logical_not(KindOps<B, Float>::equal(std::move(a), std::move(b)));
}
template <class B> auto int_not_equal(typename B::IntTensor a, typename B::IntTensor b) {
  return KindOps<B, Bool>::logical_not(KindOps<B, Int>::equal(std::move(a), std::move(b)));
}
template <class B> auto bool_not_equal(typename B::BoolTensor a, typename B::BoolTensor b) {
  return KindOps<B, Bool>::logical_not(KindOps<B, Bool>::equal(std::move(a), std::move(b)));
}
template <class B> auto bool_logical_xor(typename B::BoolTensor a, typename B::BoolTensor b) {
  return KindOps<B, Bool>::not_equal(std::move(a), std::move(b));
}
template <class B> auto float_not_equal_elem(typename B::FloatTensor a, Scalar s) {
  return KindOps<B, Bool>::logical_not(KindOps<B, Float>::equal_elem(std::move(a), s));
}
template <class B> auto int_not_equal_elem(typename B::IntTensor a, Scalar s) {
  return KindOps<B, Bool>::logical_not(KindOps<B, Int>::equal_elem(std::move(a), s));
}

template <class B, class K, class T> T clamp_min_of(T x, Scalar lo) {
  auto mask = KindOps<B, K>::lower_elem(x, lo);
  return KindOps<B, K>::mask_fill(std::move(x), std::move(mask), lo);
}
template <class B, class K, class T> T clamp_max_of(T x, Scalar hi) {
  auto mask = KindOps<B, K>::greater_elem(x, hi);
  return KindOps<B, K>::mask_fill(std::move(x), std::move(mask), hi);
}
/// Values below lo become lo; NaN stays NaN.
template <class B> auto float_clamp_min(typename B::FloatTensor x, Scalar lo) {
  return clamp_min_of<B, Float>(std::move(x), lo);
}
template <class B> auto int_clamp_min(typename B::IntTensor x, Scalar lo) {
  return clamp_min_of<B, Int>(std::move(x), lo);
}
/// Values above hi become hi; NaN stays NaN.
template <class B> auto float_clamp_max(typename B::FloatTensor x, Scalar hi) {
  return clamp_max_of<B, Float>(std::move(x), hi);
}
template <class B> auto int_clamp_max(typename B::IntTensor x, Scalar hi) {
  return clamp_max_of<B, Int>(std::move(x), hi);
}
/// Values clamped to [lo, hi].
template <class B> auto float_clamp(typename B::FloatTensor x, Scalar lo, Scalar hi) {
  return KindOps<B, Float>::clamp_max(KindOps<B, Float>::clamp_min(std::move(x), lo), hi);
}
template <class B> auto int_clamp(typename B::IntTensor x, Scalar lo, Scalar hi) {
  return KindOps<B, Int>::clamp_max(KindOps<B, Int>::clamp_min(std::move(x), lo), hi);
}

}  // namespace provided
}  // namespace scorch
