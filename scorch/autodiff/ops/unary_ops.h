#pragma once
// Autodiff<B> float ops: unary math and activations, each with its derivative.
#include "scorch/autodiff/ops/common.h"

namespace scorch::autodiff {

template <class B> struct UnaryOps : OpsBase<B> {
  SCORCH_AUTODIFF_OPS_NAMES(OpsBase<B>);

  static T exp(T x);
  static T log(T x);
  static T log1p(T x);
  static T logit(T x);
  static T sqrt(T x);
  static T abs(T x);
  static T cos(T x);
  static T sin(T x);
  static T tan(T x);
  static T cosh(T x);
  static T sinh(T x);
  static T tanh(T x);
  static T acos(T x);
  static T acosh(T x);
  static T asin(T x);
  static T asinh(T x);
  static T atan(T x);
  static T atanh(T x);
  static T round(T x);
  static T floor(T x);
  static T ceil(T x);
  static T trunc(T x);
  static T sign(T x);
  static T erf(T x);
  static T recip(T x);

  static T relu(T x);
  static T leaky_relu(T x, Scalar slope);
  static T gelu(T x);
  static T sigmoid(T x);
  static T log_sigmoid(T x);
  static T hard_sigmoid(T x, Scalar alpha, Scalar beta);
  static T softmax(T x, size_t dim);
  static T log_softmax(T x, size_t dim);
};

}  // namespace scorch::autodiff
