#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu::kernels {
namespace so = scalar_ops;
namespace {

// Integer division and remainder by zero are reported, never left undefined.
void check_int_divisor(const char* op, const T& divisor) {
  if (!is_int(divisor.dtype())) return;
  bool zero = visit_int(op, divisor.dtype(), [&]<class E>() {
    T c = contiguous(divisor);
    const E* p = c.data<E>();
    for (size_t i = 0; i < c.numel(); ++i)
      if (p[i] == 0) return true;
    return false;
  });
  if (zero) throw ValueError(op, "integer division by zero");
}

void check_int_scalar_divisor(const char* op, const T& x, Scalar s) {
  if (is_int(x.dtype()) && s.to_int() == 0 && s.to_double() == 0.0) throw ValueError(op, "integer division by zero");
}

}  // namespace

T div(T a, T b) {
  check_int_divisor("div", b);
  return binary_numeric("div", std::move(a), std::move(b), so::Div{});
}
T remainder(T a, T b) {
  check_int_divisor("remainder", b);
  return binary_numeric("remainder", std::move(a), std::move(b), so::Remainder{});
}
T powi(T a, T b) {
  if (is_float(a.dtype())) return powf(std::move(a), cast(std::move(b), a.dtype()));
  return binary_numeric("powi", std::move(a), cast(std::move(b), a.dtype()), so::IntPow{});
}

T div_scalar(T a, Scalar s) {
  check_int_scalar_divisor("div_scalar", a, s);
  return scalar_numeric("div_scalar", std::move(a), s, so::Div{});
}
T remainder_scalar(T a, Scalar s) {
  check_int_scalar_divisor("remainder_scalar", a, s);
  return scalar_numeric("remainder_scalar", std::move(a), s, so::Remainder{});
}
T powf_scalar(T a, Scalar s) {
  double e = s.to_double();
  if (e == 2.0) return unary_float("powf_scalar", std::move(a), [](auto x) { return x * x; });
  if (e == 0.5) return sqrt(std::move(a));
  return scalar_numeric("powf_scalar", std::move(a), s, so::Pow{});
}
T powi_scalar(T a, Scalar s) {
  if (is_float(a.dtype())) return powf_scalar(std::move(a), s);
  return scalar_numeric("powi_scalar", std::move(a), Scalar(s.to_int()), so::IntPow{});
}

}  // namespace scorch::backends::cpu::kernels
