#include "scorch/backend/scalar_ops.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/cpu/kernels/vec_math.h"

namespace scorch::backends::cpu::kernels {
namespace so = scalar_ops;
namespace {
// f32 (and f16/bf16, computed in f32) through the vectorizable vec_math forms; f64 through so::.
struct FastExp {
  float operator()(float x) const { return vec_math::exp(x); }
  double operator()(double x) const { return std::exp(x); }
};
struct FastErf {
  float operator()(float x) const { return vec_math::erf(x); }
  double operator()(double x) const { return std::erf(x); }
};
struct FastGelu {
  float operator()(float x) const { return x * 0.5f * (1.f + vec_math::erf(x * 0.70710678118654752f)); }
  double operator()(double x) const { return so::Gelu{}(x); }
};
struct FastSigmoid {
  float operator()(float x) const { return 1.f / (1.f + vec_math::exp(-x)); }
  double operator()(double x) const { return so::Sigmoid{}(x); }
};
}  // namespace

T exp(T x) { return unary_float("exp", std::move(x), FastExp{}); }
T erf(T x) { return unary_float("erf", std::move(x), FastErf{}); }
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
    // As torch.clamp: lo first, then hi (so hi wins when lo > hi); NaN passes through.
    return map_unary<E, E>(std::move(x), x.dtype(), [=](C v) {
      C m = v < l ? l : v;
      return m > h ? h : m;
    });
  });
}
T clamp_min(T x, Scalar lo) {
  return scalar_numeric("clamp_min", std::move(x), lo, [](auto v, auto l) { return v < l ? l : v; });
}
T clamp_max(T x, Scalar hi) {
  return scalar_numeric("clamp_max", std::move(x), hi, [](auto v, auto h) { return v > h ? h : v; });
}

T leaky_relu(T x, Scalar slope) {
  return scalar_numeric("leaky_relu", std::move(x), slope, [](auto v, auto s) { return v < 0 ? v * s : v; });
}
T gelu(T x) { return unary_float("gelu", std::move(x), FastGelu{}); }
T sigmoid(T x) { return unary_float("sigmoid", std::move(x), FastSigmoid{}); }
T hard_sigmoid(T x, Scalar alpha, Scalar beta) {
  return visit_float("hard_sigmoid", x.dtype(), [&]<class E>() {
    using C = compute_t<E>;
    C a = static_cast<C>(alpha.to_double()), b = static_cast<C>(beta.to_double());
    return map_unary<E, E>(std::move(x), x.dtype(), [=](C v) {
      C y = a * v + b;
      return y != y ? y : std::min(C(1), std::max(C(0), y));  // NaN passes through
    });
  });
}

}  // namespace scorch::backends::cpu::kernels
