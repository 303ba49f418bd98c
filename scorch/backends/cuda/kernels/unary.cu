#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace so = scalar_ops;
namespace {
struct Square {
  template <class C> __device__ C operator()(C x) const { return x * x; }
};
}  // namespace

T is_nan(T x) {
  return visit_float("is_nan", x.dtype(),
                     [&]<class E>() { return map_unary<E, bool>("is_nan", std::move(x), DType::Bool, so::IsNan{}); });
}
T is_inf(T x) {
  return visit_float("is_inf", x.dtype(),
                     [&]<class E>() { return map_unary<E, bool>("is_inf", std::move(x), DType::Bool, so::IsInf{}); });
}

T clamp(T x, Scalar lo, Scalar hi) {
  DType d = x.dtype();
  return visit_numeric("clamp", d, [&]<class E>() {
    using C = dcompute_t<E>;
    return map_unary<E, E>("clamp", std::move(x), d, so::Clamp<C>{scalar_as<E>(lo), scalar_as<E>(hi)});
  });
}

T hard_sigmoid(T x, Scalar alpha, Scalar beta) {
  DType d = x.dtype();
  return visit_float("hard_sigmoid", d, [&]<class E>() {
    using C = dcompute_t<E>;
    return map_unary<E, E>("hard_sigmoid", std::move(x), d,
                           so::HardSigmoid<C>{scalar_as<E>(alpha), scalar_as<E>(beta)});
  });
}

T powf_scalar(T a, Scalar s) {
  double e = s.to_double();
  if (e == 2.0) return unary_float("powf_scalar", std::move(a), Square{});
  if (e == 0.5) return sqrt(std::move(a));
  return scalar_numeric("powf_scalar", std::move(a), s, so::Pow{});
}
T powi_scalar(T a, Scalar s) {
  if (is_float(a.dtype())) return powf_scalar(std::move(a), s);
  return scalar_numeric("powi_scalar", std::move(a), Scalar(s.to_int()), so::IntPow{});
}

}  // namespace scorch::backends::cuda::kernels
