#pragma once
// Autodiff<B> float ops: creation and data, casts, comparisons and other ops without a
// gradient (passed to the inner backend), arithmetic, matmul, clamps and masks.
#include "scorch/autodiff/ops/common.h"
#include "scorch/core/distribution.h"
#include "scorch/core/tensor_data.h"

namespace scorch::autodiff {

template <class B> struct BasicOps : OpsBase<B> {
  SCORCH_AUTODIFF_OPS_NAMES(OpsBase<B>);
  using Device = typename B::Device;

  // ---- creation and data (untracked results)
  static T from_data(TensorData data, Device device);
  static TensorData into_data(T x);
  static T to_device(T x, Device device);
  static T empty(Shape shape, Device device, DType dtype);
  static T full(Shape shape, Scalar value, Device device, DType dtype);
  static T random(Shape shape, Distribution dist, Device device, DType dtype);
  /// The inner backend's seed (no read-back through the provided default).
  static uint64_t random_seed(Device device) { return I::random_seed(device); }
  static T cast(T x, DType dtype);
  static IntP into_int(T x, DType dtype);
  static T int_into_float(IntP x, DType dtype);
  static T bool_into_float(BoolP x, DType dtype);

  // ---- no gradient: comparisons, tests, arg-reductions
  static BoolP equal(T a, T b);
  static BoolP not_equal(T a, T b);
  static BoolP greater(T a, T b);
  static BoolP greater_equal(T a, T b);
  static BoolP lower(T a, T b);
  static BoolP lower_equal(T a, T b);
  static BoolP equal_elem(T a, Scalar s);
  static BoolP not_equal_elem(T a, Scalar s);
  static BoolP greater_elem(T a, Scalar s);
  static BoolP greater_equal_elem(T a, Scalar s);
  static BoolP lower_elem(T a, Scalar s);
  static BoolP lower_equal_elem(T a, Scalar s);
  static BoolP is_nan(T x);
  static BoolP is_inf(T x);
  static IntP argmax(T x, size_t dim);
  static IntP argmin(T x, size_t dim);
  static IntP argsort(T x, size_t dim, bool descending);
  static BoolP any(T x);
  static BoolP any_dim(T x, size_t dim);
  static BoolP all(T x);
  static BoolP all_dim(T x, size_t dim);

  // ---- arithmetic
  static T add(T a, T b);
  static T sub(T a, T b);
  static T mul(T a, T b);
  static T div(T a, T b);
  static T remainder(T a, T b);
  static T powf(T a, T b);
  static T powi(T a, IntP b);
  static T atan2(T a, T b);
  static T add_scalar(T a, Scalar s);
  static T sub_scalar(T a, Scalar s);
  static T mul_scalar(T a, Scalar s);
  static T div_scalar(T a, Scalar s);
  static T remainder_scalar(T a, Scalar s);
  static T powf_scalar(T a, Scalar s);
  static T neg(T x);
  static T matmul(T a, T b);

  // ---- clamps and masks
  static T clamp(T x, Scalar lo, Scalar hi);
  static T clamp_min(T x, Scalar lo);
  static T clamp_max(T x, Scalar hi);
  static T mask_where(T x, BoolP mask, T values);
  static T mask_fill(T x, BoolP mask, Scalar value);
};

}  // namespace scorch::autodiff
