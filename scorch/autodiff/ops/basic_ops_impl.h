#pragma once
// Definitions of BasicOps<B>; included by the translation unit that instantiates Autodiff<B>.
#include "scorch/autodiff/ops/basic_ops.h"

namespace scorch::autodiff {

#define SCORCH_AD_TEMPLATE template <class B>
#define SCORCH_AD_PASS_BINARY(op)                                       \
  SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::op(T a, T b) { \
    return I::op(std::move(a.primitive), std::move(b.primitive));       \
  }
#define SCORCH_AD_PASS_SCALAR(op) \
  SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::op(T a, Scalar s) { return I::op(std::move(a.primitive), s); }

// ---- creation and data
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::from_data(TensorData data, Device device) {
  return T(I::from_data(std::move(data), device));
}
SCORCH_AD_TEMPLATE TensorData BasicOps<B>::into_data(T x) { return I::into_data(std::move(x.primitive)); }
// The inner backend's seed (no read-back through the provided default).
SCORCH_AD_TEMPLATE uint64_t BasicOps<B>::random_seed(Device device) { return I::random_seed(device); }
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::to_device(T x, Device device) {
  Device source = x.device();
  return R::unary(
      "to_device", Bound::Compute, std::move(x), 0,
      [device](auto in) { return I::to_device(std::move(in[0]), device); },
      [source](auto& c) { c.to(0, [&] { return I::to_device(c.grad(), source); }); });
}
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::empty(Shape shape, Device device, DType dtype) {
  return T(I::empty(shape, device, dtype));
}
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::full(Shape shape, Scalar value, Device device, DType dtype) {
  return T(I::full(shape, value, device, dtype));
}
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::random(Shape shape, Distribution dist, Device device, DType dtype) {
  return T(I::random(shape, dist, device, dtype));
}
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::cast(T x, DType dtype) {
  DType source = x.dtype();
  return R::unary(
      "cast", Bound::Memory, std::move(x), 0, [dtype](auto in) { return I::cast(std::move(in[0]), dtype); },
      [source](auto& c) { c.to(0, [&] { return I::cast(c.grad(), source); }); });
}
SCORCH_AD_TEMPLATE typename B::IntTensor BasicOps<B>::into_int(T x, DType dtype) {
  return I::into_int(std::move(x.primitive), dtype);
}
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::int_into_float(IntP x, DType dtype) {
  return T(KindOps<B, Int>::into_float(std::move(x), dtype));
}
SCORCH_AD_TEMPLATE AutodiffTensor<B> BasicOps<B>::bool_into_float(BoolP x, DType dtype) {
  return T(KindOps<B, Bool>::into_float(std::move(x), dtype));
}

// ---- no gradient
SCORCH_AD_PASS_BINARY(equal)
SCORCH_AD_PASS_BINARY(not_equal)
SCORCH_AD_PASS_BINARY(greater)
SCORCH_AD_PASS_BINARY(greater_equal)
SCORCH_AD_PASS_BINARY(lower)
SCORCH_AD_PASS_BINARY(lower_equal)
SCORCH_AD_PASS_SCALAR(equal_elem)
SCORCH_AD_PASS_SCALAR(not_equal_elem)
SCORCH_AD_PASS_SCALAR(greater_elem)
SCORCH_AD_PASS_SCALAR(greater_equal_elem)
SCORCH_AD_PASS_SCALAR(lower_elem)
SCORCH_AD_PASS_SCALAR(lower_equal_elem)
SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::is_nan(T x) { return I::is_nan(std::move(x.primitive)); }
SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::is_inf(T x) { return I::is_inf(std::move(x.primitive)); }
SCORCH_AD_TEMPLATE typename B::IntTensor BasicOps<B>::argmax(T x, size_t dim) {
  return I::argmax(std::move(x.primitive), dim);
}
SCORCH_AD_TEMPLATE typename B::IntTensor BasicOps<B>::argmin(T x, size_t dim) {
  return I::argmin(std::move(x.primitive), dim);
}
SCORCH_AD_TEMPLATE typename B::IntTensor BasicOps<B>::argsort(T x, size_t dim, bool descending) {
  return I::argsort(std::move(x.primitive), dim, descending);
}
SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::any(T x) { return I::any(std::move(x.primitive)); }
SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::any_dim(T x, size_t dim) {
  return I::any_dim(std::move(x.primitive), dim);
}
SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::all(T x) { return I::all(std::move(x.primitive)); }
SCORCH_AD_TEMPLATE typename B::BoolTensor BasicOps<B>::all_dim(T x, size_t dim) {
  return I::all_dim(std::move(x.primitive), dim);
}

#undef SCORCH_AD_PASS_BINARY
#undef SCORCH_AD_PASS_SCALAR
#undef SCORCH_AD_TEMPLATE

}  // namespace scorch::autodiff

#include "scorch/autodiff/ops/arith_ops_impl.h"
