#pragma once
// Scalar math, written once: each elementwise op is a functor on the compute type, reused by
// every backend's loops and, as NVRTC text (scorch/gen/scalar_ops_text.h), by generated kernels.
// Integer arithmetic wraps like two's complement hardware instead of invoking undefined behaviour.
#include "scorch/backends/common/fast_math.h"
#include "scorch/backends/common/portable_std.h"

namespace scorch::scalar_ops {

template <class T> using Unsigned = stdx::make_unsigned_t<T>;
/// Unsigned type wide enough that T's arithmetic wraps without integer promotion to int.
template <class T> using Wrap = stdx::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Unsigned<T>>;
template <class T> constexpr bool kWrapInt = stdx::is_integral_v<T> && !stdx::is_same_v<T, bool>;

// ---- binary arithmetic
struct Add {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    if constexpr (kWrapInt<T>) return static_cast<T>(static_cast<Wrap<T>>(a) + static_cast<Wrap<T>>(b));
    else return a + b;
  }
};
struct Sub {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    if constexpr (kWrapInt<T>) return static_cast<T>(static_cast<Wrap<T>>(a) - static_cast<Wrap<T>>(b));
    else return a - b;
  }
};
struct Mul {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    if constexpr (kWrapInt<T>) return static_cast<T>(static_cast<Wrap<T>>(a) * static_cast<Wrap<T>>(b));
    else return a * b;
  }
};
/// Float: true division. Int: floor division (Python's //); b == 0 gives 0 (callers report it).
struct Div {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    if constexpr (stdx::is_integral_v<T>) {
      if (b == 0) return 0;
      if constexpr (stdx::is_signed_v<T>)
        if (b == -1) return static_cast<T>(Wrap<T>(0) - static_cast<Wrap<T>>(a));
      T q = a / b;
      if constexpr (stdx::is_signed_v<T>)
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else return a / b;
  }
};
/// Remainder with the sign of the divisor (Python's %, torch.remainder).
struct Remainder {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    if constexpr (stdx::is_integral_v<T>) {
      if (b == 0) return 0;
      if constexpr (stdx::is_signed_v<T>)
        if (b == -1) return 0;
      T r = a % b;
      if constexpr (stdx::is_signed_v<T>)
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else {
      T r = stdx::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};
struct Pow {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return stdx::pow(a, b); }
};
/// Exact integer power by squaring; negative exponents give 0 except for bases ±1.
struct IntPow {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    if constexpr (stdx::is_floating_point_v<T>) return stdx::pow(a, b);
    else return int_pow(a, b);
  }
  template <class T> SCORCH_HD static T int_pow(T a, T b) {
    if constexpr (stdx::is_signed_v<T>)
      if (b < 0) return a == 1 ? T(1) : a == -1 ? ((b & 1) ? T(-1) : T(1)) : T(0);
    uint64_t base = static_cast<uint64_t>(static_cast<Unsigned<T>>(a)), result = 1;
    for (auto e = static_cast<uint64_t>(static_cast<Unsigned<T>>(b)); e; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  }
};
struct Atan2 {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return stdx::atan2(a, b); }
};
/// log(e^a + e^b) without overflow: max + log1p(e^-|a - b|); equal operands (both infinite too) give a + log 2.
struct LogAddExp {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    if (a == b) return a + T(0.69314718055994530942);
    T d = a - b;
    return (d > T(0) ? a : b) + stdx::log1p(stdx::exp(-(d < T(0) ? -d : d)));
  }
};
struct Minimum {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return (a != a || a < b) ? a : b; }
};
struct Maximum {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return (a != a || a > b) ? a : b; }
};

/// e^x and erf(x): fast_math's forms for f32 (vectorizable on the host), the C library otherwise.
template <class T> SCORCH_HD T exp_of(T x) {
  if constexpr (stdx::is_same_v<T, float>) return fast_math::exp(x);
  else return stdx::exp(x);
}
template <class T> SCORCH_HD T erf_of(T x) {
  if constexpr (stdx::is_same_v<T, float>) return fast_math::erf(x);
  else return stdx::erf(x);
}

// ---- unary float math
#define SCORCH_UNARY(Name, expr)                                          \
  struct Name {                                                           \
    template <class T> SCORCH_HD T operator()(T x) const { return expr; } \
  };
SCORCH_UNARY(Exp, exp_of(x))
SCORCH_UNARY(Log, stdx::log(x))
SCORCH_UNARY(Log1p, stdx::log1p(x))
SCORCH_UNARY(Logit, stdx::log(x / (T(1) - x)))
SCORCH_UNARY(Sqrt, stdx::sqrt(x))
SCORCH_UNARY(Cos, stdx::cos(x))
SCORCH_UNARY(Sin, stdx::sin(x))
SCORCH_UNARY(Tan, stdx::tan(x))
SCORCH_UNARY(Cosh, stdx::cosh(x))
SCORCH_UNARY(Sinh, stdx::sinh(x))
SCORCH_UNARY(Tanh, stdx::tanh(x))
SCORCH_UNARY(Acos, stdx::acos(x))
SCORCH_UNARY(Acosh, stdx::acosh(x))
SCORCH_UNARY(Asin, stdx::asin(x))
SCORCH_UNARY(Asinh, stdx::asinh(x))
SCORCH_UNARY(Atan, stdx::atan(x))
SCORCH_UNARY(Atanh, stdx::atanh(x))
SCORCH_UNARY(Round, stdx::nearbyint(x))  // ties to even, like torch.round
SCORCH_UNARY(Floor, stdx::floor(x))
SCORCH_UNARY(Ceil, stdx::ceil(x))
SCORCH_UNARY(Trunc, stdx::trunc(x))
SCORCH_UNARY(Erf, erf_of(x))
SCORCH_UNARY(Recip, T(1) / x)
SCORCH_UNARY(Relu, x > T(0) ? x : (x != x ? x : T(0)))
SCORCH_UNARY(Sigmoid, T(1) / (T(1) + exp_of(-x)))
SCORCH_UNARY(Gelu, x* T(0.5) * (T(1) + erf_of(x * T(0.70710678118654752440))))
SCORCH_UNARY(LogSigmoid, -((-x < T(0) ? T(0) : -x) + stdx::log1p(exp_of(-stdx::abs(x)))))
SCORCH_UNARY(IsNan, x != x)
SCORCH_UNARY(IsInf, stdx::isinf(x))
#undef SCORCH_UNARY

// ---- clamps and activations with scalar parameters (NaN passes through all of them)
/// As torch.clamp: lo first, then hi (so hi wins when lo > hi).
template <class C> struct Clamp {
  C lo, hi;
  SCORCH_HD C operator()(C v) const {
    C m = v < lo ? lo : v;
    return m > hi ? hi : m;
  }
};
struct ClampMin {
  template <class C> SCORCH_HD C operator()(C v, C lo) const { return v < lo ? lo : v; }
};
struct ClampMax {
  template <class C> SCORCH_HD C operator()(C v, C hi) const { return v > hi ? hi : v; }
};
struct LeakyRelu {
  template <class C> SCORCH_HD C operator()(C v, C slope) const { return v < C(0) ? v * slope : v; }
};
/// min(1, max(0, alpha * v + beta)).
template <class C> struct HardSigmoid {
  C alpha, beta;
  SCORCH_HD C operator()(C v) const {
    C y = alpha * v + beta;
    return y != y ? y : (y < C(0) ? C(0) : (y > C(1) ? C(1) : y));
  }
};

/// |x|; wraps for the most negative integer.
struct Abs {
  template <class T> SCORCH_HD T operator()(T x) const {
    if constexpr (stdx::is_unsigned_v<T>) return x;
    else if constexpr (kWrapInt<T>) return x < 0 ? static_cast<T>(Wrap<T>(0) - static_cast<Wrap<T>>(x)) : x;
    else return stdx::abs(x);
  }
};
struct Neg {
  template <class T> SCORCH_HD T operator()(T x) const {
    if constexpr (kWrapInt<T>) return static_cast<T>(Wrap<T>(0) - static_cast<Wrap<T>>(x));
    else return -x;
  }
};
/// -1, 0 or 1 (NaN stays NaN).
struct Sign {
  template <class T> SCORCH_HD T operator()(T x) const {
    if constexpr (stdx::is_floating_point_v<T>)
      if (x != x) return x;
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};

// ---- comparisons and logic (→ bool)
struct Equal {
  template <class T> SCORCH_HD bool operator()(T a, T b) const { return a == b; }
};
struct NotEqual {
  template <class T> SCORCH_HD bool operator()(T a, T b) const { return a != b; }
};
struct Greater {
  template <class T> SCORCH_HD bool operator()(T a, T b) const { return a > b; }
};
struct GreaterEqual {
  template <class T> SCORCH_HD bool operator()(T a, T b) const { return a >= b; }
};
struct Lower {
  template <class T> SCORCH_HD bool operator()(T a, T b) const { return a < b; }
};
struct LowerEqual {
  template <class T> SCORCH_HD bool operator()(T a, T b) const { return a <= b; }
};
struct LogicalAnd {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return a && b; }
};
struct LogicalOr {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return a || b; }
};
struct LogicalXor {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return a != b; }
};
struct LogicalNot {
  template <class T> SCORCH_HD T operator()(T x) const { return !x; }
};

// ---- bitwise (integers)
struct BitAnd {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return a & b; }
};
struct BitOr {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return a | b; }
};
struct BitXor {
  template <class T> SCORCH_HD T operator()(T a, T b) const { return a ^ b; }
};
struct BitNot {
  template <class T> SCORCH_HD T operator()(T x) const { return static_cast<T>(~x); }
};
/// a << b; shifts of the bit width or more (or negative) give 0.
struct ShiftLeft {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    constexpr int bits = stdx::numeric_limits<Unsigned<T>>::digits;
    if (b < 0 || b >= bits) return 0;
    return static_cast<T>(static_cast<Wrap<T>>(a) << b);
  }
};
/// a >> b (arithmetic for signed types); shifts of the bit width or more fill with the sign.
struct ShiftRight {
  template <class T> SCORCH_HD T operator()(T a, T b) const {
    constexpr int bits = stdx::numeric_limits<Unsigned<T>>::digits;
    if (b < 0 || b >= bits) return a < 0 ? T(-1) : T(0);
    return static_cast<T>(a >> b);
  }
};

}  // namespace scorch::scalar_ops
