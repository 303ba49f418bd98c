#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace so = scalar_ops;
T is_nan(T x) {
  return visit_float("is_nan", x.dtype(),
                     [&]<class E>() { return map_unary<E, bool>(std::move(x), DType::Bool, so::IsNan{}); });
}
T is_inf(T x) {
  return visit_float("is_inf", x.dtype(),
                     [&]<class E>() { return map_unary<E, bool>(std::move(x), DType::Bool, so::IsInf{}); });
}

T clamp(T x, Scalar lo, Scalar hi) {
  return visit_numeric("clamp", x.dtype(), [&]<class E>() {
    using C = compute_t<E>;
    C l = std::is_floating_point_v<C> ? static_cast<C>(lo.to_double()) : static_cast<C>(lo.to_int());
    C h = std::is_floating_point_v<C> ? static_cast<C>(hi.to_double()) : static_cast<C>(hi.to_int());
    return map_unary<E, E>(std::move(x), x.dtype(), so::Clamp<C>{l, h});
  });
}
T hard_sigmoid(T x, Scalar alpha, Scalar beta) {
  return visit_float("hard_sigmoid", x.dtype(), [&]<class E>() {
    using C = compute_t<E>;
    C a = static_cast<C>(alpha.to_double()), b = static_cast<C>(beta.to_double());
    return map_unary<E, E>(std::move(x), x.dtype(), so::HardSigmoid<C>{a, b});
  });
}

}  // namespace scorch::backends::cpu::kernels
