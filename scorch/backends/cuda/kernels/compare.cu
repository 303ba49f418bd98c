#include "scorch/backend/scalar_ops.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace so = scalar_ops;
namespace {

template <class F> T compare(const char* op, T a, T b, F f) {
  return visit_any(op, a.dtype(),
                   [&]<class E>() { return map_binary<E, bool>(op, std::move(a), std::move(b), DType::Bool, f); });
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

#include "scorch/backend/elementwise_ops.inc"

T logical_not(T x) { return map_unary<bool, bool>("logical_not", std::move(x), DType::Bool, so::LogicalNot{}); }

T bitwise_not(T x) {
  DType d = x.dtype();
  return visit_int("bitwise_not", d,
                   [&]<class E>() { return map_unary<E, E>("bitwise_not", std::move(x), d, so::BitNot{}); });
}

}  // namespace scorch::backends::cuda::kernels
