#include "scorch/backend/scalar_ops.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace so = scalar_ops;
namespace {

template <class F> T compare(const char* op, T a, T b, F f) {
  return visit_any(op, a.dtype(), [&]<class E>() { return map_binary<E, bool>(op, std::move(a), std::move(b), DType::Bool, f); });
}
// Float tensors, and int tensors against a fractional scalar, compare in double (as the Cpu backend).
template <class F> T compare_scalar(const char* op, T a, Scalar s, F f) {
  return visit_any(op, a.dtype(), [&]<class E>() {
    if (kDeviceFloat<E> || s.is_float())
      return map_unary<E, bool>(op, std::move(a), DType::Bool, BindRight<F, double>{f, s.to_double()});
    return map_unary<E, bool>(op, std::move(a), DType::Bool, BindRight<F, dcompute_t<E>>{f, scalar_as<E>(s)});
  });
}
template <class F> T bool_binary(const char* op, T a, T b, F f) {
  return map_binary<bool, bool>(op, std::move(a), std::move(b), DType::Bool, f);
}
template <class F> T int_binary(const char* op, T a, T b, F f) {
  DType d = a.dtype();
  return visit_int(op, d, [&]<class E>() { return map_binary<E, E>(op, std::move(a), std::move(b), d, f); });
}
template <class F> T int_scalar(const char* op, T a, Scalar s, F f) {
  DType d = a.dtype();
  return visit_int(op, d, [&]<class E>() {
    return map_unary<E, E>(op, std::move(a), d, BindRight<F, E>{f, static_cast<E>(s.to_int())});
  });
}

}  // namespace

T equal(T a, T b) { return compare("equal", std::move(a), std::move(b), so::Equal{}); }
T not_equal(T a, T b) { return compare("not_equal", std::move(a), std::move(b), so::NotEqual{}); }
T greater(T a, T b) { return compare("greater", std::move(a), std::move(b), so::Greater{}); }
T greater_equal(T a, T b) { return compare("greater_equal", std::move(a), std::move(b), so::GreaterEqual{}); }
T lower(T a, T b) { return compare("lower", std::move(a), std::move(b), so::Lower{}); }
T lower_equal(T a, T b) { return compare("lower_equal", std::move(a), std::move(b), so::LowerEqual{}); }
T equal_elem(T a, Scalar s) { return compare_scalar("equal_elem", std::move(a), s, so::Equal{}); }
T not_equal_elem(T a, Scalar s) { return compare_scalar("not_equal_elem", std::move(a), s, so::NotEqual{}); }
T greater_elem(T a, Scalar s) { return compare_scalar("greater_elem", std::move(a), s, so::Greater{}); }
T greater_equal_elem(T a, Scalar s) { return compare_scalar("greater_equal_elem", std::move(a), s, so::GreaterEqual{}); }
T lower_elem(T a, Scalar s) { return compare_scalar("lower_elem", std::move(a), s, so::Lower{}); }
T lower_equal_elem(T a, Scalar s) { return compare_scalar("lower_equal_elem", std::move(a), s, so::LowerEqual{}); }

T logical_not(T x) { return map_unary<bool, bool>("logical_not", std::move(x), DType::Bool, so::LogicalNot{}); }
T logical_and(T a, T b) { return bool_binary("logical_and", std::move(a), std::move(b), so::LogicalAnd{}); }
T logical_or(T a, T b) { return bool_binary("logical_or", std::move(a), std::move(b), so::LogicalOr{}); }
T logical_xor(T a, T b) { return bool_binary("logical_xor", std::move(a), std::move(b), so::LogicalXor{}); }

T bitwise_and(T a, T b) { return int_binary("bitwise_and", std::move(a), std::move(b), so::BitAnd{}); }
T bitwise_or(T a, T b) { return int_binary("bitwise_or", std::move(a), std::move(b), so::BitOr{}); }
T bitwise_xor(T a, T b) { return int_binary("bitwise_xor", std::move(a), std::move(b), so::BitXor{}); }
T bitwise_and_scalar(T a, Scalar s) { return int_scalar("bitwise_and_scalar", std::move(a), s, so::BitAnd{}); }
T bitwise_or_scalar(T a, Scalar s) { return int_scalar("bitwise_or_scalar", std::move(a), s, so::BitOr{}); }
T bitwise_xor_scalar(T a, Scalar s) { return int_scalar("bitwise_xor_scalar", std::move(a), s, so::BitXor{}); }
T bitwise_not(T x) {
  DType d = x.dtype();
  return visit_int("bitwise_not", d, [&]<class E>() { return map_unary<E, E>("bitwise_not", std::move(x), d, so::BitNot{}); });
}
T bitwise_left_shift(T a, T b) { return int_binary("bitwise_left_shift", std::move(a), std::move(b), so::ShiftLeft{}); }
T bitwise_right_shift(T a, T b) { return int_binary("bitwise_right_shift", std::move(a), std::move(b), so::ShiftRight{}); }
T bitwise_left_shift_scalar(T a, Scalar s) { return int_scalar("bitwise_left_shift_scalar", std::move(a), s, so::ShiftLeft{}); }
T bitwise_right_shift_scalar(T a, Scalar s) { return int_scalar("bitwise_right_shift_scalar", std::move(a), s, so::ShiftRight{}); }

}  // namespace scorch::backends::cuda::kernels
