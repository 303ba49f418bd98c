#include "scorch/backend/scalar_ops.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace so = scalar_ops;
namespace {

template <class F> T bool_binary(const char* op, T a, T b, F f) {
  return map_binary<bool, bool>(op, std::move(a), std::move(b), DType::Bool, f);
}
template <class F> T int_binary(const char* op, T a, T b, F f) {
  DType d = a.dtype();
  return visit_int(op, d, [&]<class E>() { return map_binary<E, E>(op, std::move(a), std::move(b), d, f); });
}
template <class F> T int_scalar(const char* op, T a, Scalar s, F f) {
  return visit_int(op, a.dtype(), [&]<class E>() {
    auto v = static_cast<compute_t<E>>(s.to_int());
    return map_unary<E, E>(std::move(a), a.dtype(), [&](auto x) { return f(x, v); });
  });
}

}  // namespace

#include "scorch/backend/elementwise_ops.inc"

T logical_not(T x) { return map_unary<bool, bool>(std::move(x), DType::Bool, so::LogicalNot{}); }

T bitwise_not(T x) {
  return visit_int("bitwise_not", x.dtype(),
                   [&]<class E>() { return map_unary<E, E>(std::move(x), x.dtype(), so::BitNot{}); });
}

}  // namespace scorch::backends::cpu::kernels
