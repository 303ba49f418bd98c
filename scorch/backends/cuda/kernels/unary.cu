#include "scorch/backend/scalar_ops.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace so = scalar_ops;
namespace {
struct ClampBoth {
  template <class C> __device__ C operator()(C v, C l, C h) const {
    C m = v < l ? l : v;  // as torch.clamp: lo first, then hi (hi wins when lo > hi); NaN passes
    return m > h ? h : m;
  }
};
template <class C> struct Clamp {
  C lo, hi;
  __device__ C operator()(C v) const { return ClampBoth{}(v, lo, hi); }
};
struct ClampMin {
  template <class C> __device__ C operator()(C v, C l) const { return v < l ? l : v; }
};
struct ClampMax {
  template <class C> __device__ C operator()(C v, C h) const { return v > h ? h : v; }
};
struct LeakyRelu {
  template <class C> __device__ C operator()(C v, C s) const { return v < C(0) ? v * s : v; }
};
template <class C> struct HardSigmoid {
  C a, b;
  __device__ C operator()(C v) const {
    C y = a * v + b;
    return y != y ? y : (y < C(0) ? C(0) : (y > C(1) ? C(1) : y));  // NaN passes through
  }
};
struct Square {
  template <class C> __device__ C operator()(C x) const { return x * x; }
};
}  // namespace

T exp(T x) { return unary_float("exp", std::move(x), so::Exp{}); }
T erf(T x) { return unary_float("erf", std::move(x), so::Erf{}); }
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
    return map_unary<E, E>("clamp", std::move(x), d, Clamp<C>{scalar_as<E>(lo), scalar_as<E>(hi)});
  });
}
T clamp_min(T x, Scalar lo) { return scalar_numeric("clamp_min", std::move(x), lo, ClampMin{}); }
T clamp_max(T x, Scalar hi) { return scalar_numeric("clamp_max", std::move(x), hi, ClampMax{}); }

T leaky_relu(T x, Scalar slope) { return scalar_numeric("leaky_relu", std::move(x), slope, LeakyRelu{}); }
T gelu(T x) { return unary_float("gelu", std::move(x), so::Gelu{}); }
T sigmoid(T x) { return unary_float("sigmoid", std::move(x), so::Sigmoid{}); }
T hard_sigmoid(T x, Scalar alpha, Scalar beta) {
  DType d = x.dtype();
  return visit_float("hard_sigmoid", d, [&]<class E>() {
    using C = dcompute_t<E>;
    return map_unary<E, E>("hard_sigmoid", std::move(x), d, HardSigmoid<C>{scalar_as<E>(alpha), scalar_as<E>(beta)});
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
