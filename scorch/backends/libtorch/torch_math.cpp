// Elementwise ops on LibTorch: arithmetic, scalar forms, unary math, comparisons, logic, bitwise,
// clamps, activations and matmul. A uniquely owned left operand of the result's shape and dtype
// is overwritten in place; f16/bf16 on the host compute in f32.
#include "scorch/backends/libtorch/interop.h"

namespace scorch::backends::libtorch::ops {
using namespace detail;
namespace {

/// out(x, y), or in_place(x, y) when x is unique and already has the result's shape.
template <class Out, class InPlace> T binary(const char* op, T a, T b, Out out, InPlace in_place) {
  return guarded(op, [&] {
    at::Tensor x = take(a), y = take(b);
    if (low_precision_host(x)) return wrap(out(x.to(at::kFloat), y.to(at::kFloat)).to(x.scalar_type()));
    if (unique(x) && x.sizes() == at::infer_size(x.sizes(), y.sizes())) {
      in_place(x, y);
      return wrap(std::move(x));
    }
    return wrap(out(x, y));
  });
}

/// out(x), or in_place(x) when x is unique.
template <class Out, class InPlace> T unary(const char* op, T a, Out out, InPlace in_place) {
  return guarded(op, [&] {
    at::Tensor x = take(a);
    if (low_precision_host(x)) return wrap(out(x.to(at::kFloat)).to(x.scalar_type()));
    if (unique(x)) {
      in_place(x);
      return wrap(std::move(x));
    }
    return wrap(out(x));
  });
}

/// pred(x) as a bool tensor (no reuse: the dtype changes).
template <class Pred> T predicate(const char* op, T a, Pred pred) {
  return guarded(op, [&] { return wrap(pred(widened(take(a)))); });
}

/// Integer a^b with Scorch's rule for negative exponents: 0, except bases 1 and -1.
at::Tensor int_pow(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor result = at::pow(a, b.clamp_min(0));
  if (!b.lt(0).any().item<bool>()) return result;
  at::Tensor odd = b.remainder(2).ne(0);
  at::Tensor special =
      at::where(a.eq(1), at::ones_like(a),
                at::where(a.eq(-1), at::where(odd, -at::ones_like(a), at::ones_like(a)), at::zeros_like(a)));
  return at::where(b.lt(0), special, result);
}

/// Python's float %: fmod, moved to the divisor's sign. ATen's remainder (a - b·floor(a/b)) gives NaN
/// for an infinite divisor, and its vectorized f32 fmod gives NaN once a/b overflows (1e30 % 1e-30);
/// fmod's result is exact in f64, so narrower floats compute it there.
at::Tensor float_remainder(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor r = a.scalar_type() == at::kDouble ? at::fmod(a, b)
                                                : at::fmod(a.to(at::kDouble), b.to(at::kDouble)).to(a.scalar_type());
  at::Tensor adjust = r.ne(0).logical_and_(r.lt(0).ne(b.lt(0)));
  return at::where(adjust, r.add(b), r);
}

/// Floor division of integers; x / -1 negates with wrap-around (no trap on the most negative value).
at::Tensor int_floor_div(const at::Tensor& x, const at::Tensor& y) {
  if (x.scalar_type() == at::kByte) return at::div(x, y, "floor");
  at::Tensor minus_one = y.eq(-1);
  if (!minus_one.any().item<bool>()) return at::div(x, y, "floor");
  at::Tensor safe = at::where(minus_one, at::ones_like(y), y);
  return at::where(minus_one, at::zeros_like(x).sub(x), at::div(x, safe, "floor"));
}

}  // namespace

// The kernels that are one ATen call, from the ops' aten attributes in op_table.txt.
#define SCORCH_TORCH_BINARY(name, out_expr, in_place_expr)                                                    \
  T name(T a, T b) {                                                                                          \
    return binary(                                                                                            \
        #name, std::move(a), std::move(b), [](const at::Tensor& x, const at::Tensor& y) { return out_expr; }, \
        [](at::Tensor& x, const at::Tensor& y) { in_place_expr; });                                           \
  }
#define SCORCH_TORCH_SCALAR(name, out_expr, in_place_expr)                                                          \
  T name(T a, Scalar s) {                                                                                           \
    at::Scalar v = scalar_for(a.dtype(), s);                                                                        \
    return unary(                                                                                                   \
        #name, std::move(a), [&](const at::Tensor& x) { return out_expr; }, [&](at::Tensor& x) { in_place_expr; }); \
  }
#define SCORCH_TORCH_UNARY(name, out_expr, in_place_expr)                                                      \
  T name(T a) {                                                                                                \
    return unary(                                                                                              \
        #name, std::move(a), [](const at::Tensor& x) { return out_expr; }, [](at::Tensor& x) { in_place_expr; }); \
  }
#include "scorch/gen/libtorch_aten.inc"
#undef SCORCH_TORCH_BINARY
#undef SCORCH_TORCH_SCALAR
#undef SCORCH_TORCH_UNARY

T div(T a, T b) {
  if (is_float(a.dtype()))
    return binary(
        "div", std::move(a), std::move(b), [](const at::Tensor& x, const at::Tensor& y) { return at::div(x, y); },
        [](at::Tensor& x, const at::Tensor& y) { x.div_(y); });
  return guarded("div", [&] {
    at::Tensor y = take(b);
    check_divisor("div", y);
    return wrap(int_floor_div(take(a), y));
  });
}

T remainder(T a, T b) {
  return guarded("remainder", [&] {
    at::Tensor x = take(a), y = take(b);
    check_divisor("remainder", y);
    if (low_precision_host(x)) return wrap(float_remainder(x.to(at::kFloat), y.to(at::kFloat)).to(x.scalar_type()));
    if (x.is_floating_point()) return wrap(float_remainder(x, y));
    if (x.scalar_type() != at::kByte) y = at::where(y.eq(-1), at::ones_like(y), y);  // x % -1 is 0 without the trap
    return wrap(at::remainder(x, y));
  });
}

T powi(T a, T b) {
  if (is_float(a.dtype())) return powf(std::move(a), cast(std::move(b), a.dtype()));
  return guarded("powi", [&] {
    at::Tensor x = take(a);
    return wrap(int_pow(x, take(b).to(x.scalar_type())));
  });
}

T matmul(T a, T b) {
  return guarded("matmul", [&] {
    at::Tensor x = take(a), y = take(b);
    if (low_precision_host(x)) return wrap(at::matmul(x.to(at::kFloat), y.to(at::kFloat)).to(x.scalar_type()));
    return wrap(at::matmul(x, y));
  });
}


T div_scalar(T a, Scalar s) {
  if (is_int(a.dtype()) && s.to_int() == 0 && s.to_double() == 0.0)
    throw ValueError("div_scalar", "integer division by zero");
  if (is_float(a.dtype())) {
    at::Scalar v = scalar_for(a.dtype(), s);
    return unary(
        "div_scalar", std::move(a), [&](const at::Tensor& x) { return at::div(x, v); },
        [&](at::Tensor& x) { x.div_(v); });
  }
  return guarded("div_scalar", [&] {
    at::Tensor x = take(a);
    return wrap(int_floor_div(x, at::full({1}, scalar_for(from_torch(x.scalar_type()), s), x.options())));
  });
}

T remainder_scalar(T a, Scalar s) {
  if (is_int(a.dtype()) && s.to_int() == 0 && s.to_double() == 0.0)
    throw ValueError("remainder_scalar", "integer division by zero");
  if (is_int(a.dtype()) && wrapped_int(a.dtype(), s) == -1) return full(a.shape(), Scalar(0), a.device(), a.dtype());
  at::Scalar v = scalar_for(a.dtype(), s);
  if (is_float(a.dtype()))
    return unary(
        "remainder_scalar", std::move(a), [&](const at::Tensor& x) { return float_remainder(x, at::full_like(x, v)); },
        [&](at::Tensor& x) { x = float_remainder(x, at::full_like(x, v)); });
  return unary(
      "remainder_scalar", std::move(a), [&](const at::Tensor& x) { return at::remainder(x, v); },
      [&](at::Tensor& x) { x.remainder_(v); });
}

T powi_scalar(T a, Scalar s) {
  if (is_float(a.dtype())) return powf_scalar(std::move(a), s);
  return guarded("powi_scalar", [&] {
    at::Tensor x = take(a);
    return wrap(int_pow(x, at::full_like(x, wrapped_int(from_torch(x.scalar_type()), s))));
  });
}

T clamp(T a, Scalar lo, Scalar hi) {
  at::Scalar l = scalar_for(a.dtype(), lo), h = scalar_for(a.dtype(), hi);
  return unary(
      "clamp", std::move(a), [&](const at::Tensor& x) { return at::clamp(x, l, h); },
      [&](at::Tensor& x) { x.clamp_(l, h); });
}


T sign(T a) {
  // torch.sign(NaN) is 0; Scorch keeps NaN (backend/README.md).
  if (!is_float(a.dtype()))
    return unary(
        "sign", std::move(a), [](const at::Tensor& x) { return at::sign(x); }, [](at::Tensor& x) { x.sign_(); });
  auto keep_nan = [](const at::Tensor& x) { return at::where(at::isnan(x), x, at::sign(x)); };
  return unary("sign", std::move(a), keep_nan, [&](at::Tensor& x) { x = keep_nan(x); });
}
T gelu(T a) {
  return unary(
      "gelu", std::move(a), [](const at::Tensor& x) { return at::gelu(x); }, [](at::Tensor& x) { x = at::gelu(x); });
}
T log_sigmoid(T a) {
  return unary(
      "log_sigmoid", std::move(a), [](const at::Tensor& x) { return at::log_sigmoid(x); },
      [](at::Tensor& x) { x = at::log_sigmoid(x); });
}
T leaky_relu(T a, Scalar slope) {
  at::Scalar s(slope.to_double());
  return unary(
      "leaky_relu", std::move(a), [&](const at::Tensor& x) { return at::leaky_relu(x, s); },
      [&](at::Tensor& x) { at::leaky_relu_(x, s); });
}
T hard_sigmoid(T a, Scalar alpha, Scalar beta) {
  double al = alpha.to_double(), be = beta.to_double();
  return unary(
      "hard_sigmoid", std::move(a), [&](const at::Tensor& x) { return x.mul(al).add_(be).clamp_(0.0, 1.0); },
      [&](at::Tensor& x) { x.mul_(al).add_(be).clamp_(0.0, 1.0); });
}
T softmax(T a, size_t dim) {
  return unary(
      "softmax", std::move(a), [&](const at::Tensor& x) { return at::softmax(x, static_cast<int64_t>(dim)); },
      [&](at::Tensor& x) { x = at::softmax(x, static_cast<int64_t>(dim)); });
}
T log_softmax(T a, size_t dim) {
  return unary(
      "log_softmax", std::move(a), [&](const at::Tensor& x) { return at::log_softmax(x, static_cast<int64_t>(dim)); },
      [&](at::Tensor& x) { x = at::log_softmax(x, static_cast<int64_t>(dim)); });
}

T is_nan(T a) {
  return predicate("is_nan", std::move(a), [](const at::Tensor& x) { return at::isnan(x); });
}
T is_inf(T a) {
  return predicate("is_inf", std::move(a), [](const at::Tensor& x) { return at::isinf(x); });
}

#define SCORCH_TORCH_COMPARE(name, fn)                                                       \
  T name(T a, T b) {                                                                         \
    return guarded(#name, [&] { return wrap(at::fn(widened(take(a)), widened(take(b)))); }); \
  }                                                                                          \
  T name##_elem(T a, Scalar s) {                                                             \
    at::Scalar v = scalar_for(a.dtype(), s);                                                 \
    return guarded(#name "_elem", [&] { return wrap(at::fn(widened(take(a)), v)); });        \
  }
SCORCH_TORCH_COMPARE(equal, eq)
SCORCH_TORCH_COMPARE(not_equal, ne)
SCORCH_TORCH_COMPARE(greater, gt)
SCORCH_TORCH_COMPARE(greater_equal, ge)
SCORCH_TORCH_COMPARE(lower, lt)
SCORCH_TORCH_COMPARE(lower_equal, le)
#undef SCORCH_TORCH_COMPARE

#define SCORCH_TORCH_LOGIC(name, fn)                                       \
  T name(T a, T b) {                                                       \
    return guarded(#name, [&] { return wrap(at::fn(take(a), take(b))); }); \
  }
SCORCH_TORCH_LOGIC(logical_and, logical_and)
SCORCH_TORCH_LOGIC(logical_or, logical_or)
SCORCH_TORCH_LOGIC(logical_xor, logical_xor)
SCORCH_TORCH_LOGIC(bitwise_and, bitwise_and)
SCORCH_TORCH_LOGIC(bitwise_or, bitwise_or)
SCORCH_TORCH_LOGIC(bitwise_xor, bitwise_xor)
#undef SCORCH_TORCH_LOGIC
T logical_not(T a) {
  return guarded("logical_not", [&] { return wrap(at::logical_not(take(a))); });
}
namespace {
/// a << b, or a >> b, with Scorch's rule for amounts outside [0, bit width): 0 for left shifts,
/// the sign fill for right shifts (ATen leaves them to the hardware, which takes the amount modulo the width).
at::Tensor shift(const at::Tensor& a, const at::Tensor& b, bool left) {
  int64_t bits = static_cast<int64_t>(a.element_size()) * 8;
  at::Tensor out_of_range = b.lt(0).logical_or_(b.ge(bits));
  at::Tensor safe = b.masked_fill(out_of_range, 0);
  at::Tensor shifted = left ? at::bitwise_left_shift(a, safe) : at::bitwise_right_shift(a, safe);
  at::Tensor fill = left ? at::zeros_like(a) : at::where(a.lt(0), at::full_like(a, -1), at::zeros_like(a));
  return at::where(out_of_range, fill, shifted);
}
}  // namespace

T bitwise_left_shift(T a, T b) {
  return guarded("bitwise_left_shift", [&] { return wrap(shift(take(a), take(b), true)); });
}
T bitwise_right_shift(T a, T b) {
  return guarded("bitwise_right_shift", [&] { return wrap(shift(take(a), take(b), false)); });
}
T bitwise_left_shift_scalar(T a, Scalar s) {
  return guarded("bitwise_left_shift_scalar", [&] {
    at::Tensor x = take(a);
    return wrap(shift(x, at::full_like(x, wrapped_int(from_torch(x.scalar_type()), s)), true));
  });
}
T bitwise_right_shift_scalar(T a, Scalar s) {
  return guarded("bitwise_right_shift_scalar", [&] {
    at::Tensor x = take(a);
    return wrap(shift(x, at::full_like(x, wrapped_int(from_torch(x.scalar_type()), s)), false));
  });
}

}  // namespace scorch::backends::libtorch::ops
