// The elementwise launchers behind the generated kernels, and the elementwise kernels written by hand: division
// and remainder (with the integer-division-by-zero check), powf_scalar, casts, logical and bitwise not, masks.
#include "scorch/backends/vulkan/kernels/elementwise.h"

#include <algorithm>
#include <cmath>

#include "scorch/backends/vulkan/kernels/host.h"
#include "scorch/gen/cpu_kernel_ops.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
namespace cpuk = cpu::kernels;
using T = VulkanTensor;

namespace {

void check_same_device(const char* op, const T& a, const T& b) {
  if (!(a.device() == b.device()))
    throw DeviceError(op, "operands on " + a.device().to_string() + " and " + b.device().to_string());
}

bool is_comparison(int op) { return op >= OP_EQ && op <= OP_LE; }
bool is_predicate(int op) { return op == OP_IS_NAN || op == OP_IS_INF; }

// The output of an op on a: a itself when a is the only reference to a dense buffer of the result's shape and dtype.
T output_for(T& a, const Shape& shape, DType dtype) {
  return reusable(a, shape, dtype) ? a : VulkanTensor(shape, dtype, a.device());
}

int compute_kind(DType d) { return is_float(d) ? KIND_FLOAT : KIND_INT; }

void require_float(const char* name, const T& x) {
  if (!is_float(x.dtype())) throw DTypeError(name, "needs a float tensor, got " + std::string(dtype_name(x.dtype())));
}
void require_int(const char* name, const T& x) {
  if (!is_int(x.dtype())) throw DTypeError(name, "needs an int tensor, got " + std::string(dtype_name(x.dtype())));
}
void require_same_dtype(const char* name, const T& a, const T& b) {
  if (a.dtype() != b.dtype())
    throw DTypeError(
        name, "operands of dtype " + std::string(dtype_name(a.dtype())) + " and " + std::string(dtype_name(b.dtype())));
}

}  // namespace

bool f32_only(int op) {
  switch (op) {
    SCORCH_VK_F32_ONLY_CASES
    case OP_REM: return true;
    default: return false;
  }
}

T host_unary(const char* name, int op, const T& x) {
  auto run = [&](auto fn) { return host::run<T>(name, fn, x); };
  switch (op) {
#define SCORCH_VK_HOST_CASE(code, kernel) \
  case code: return run([](auto&& a) { return cpuk::kernel(a); });
    SCORCH_VK_HOST_UNARY(SCORCH_VK_HOST_CASE)
#undef SCORCH_VK_HOST_CASE
    default: throw DeviceError(name, "no host form of this op");
  }
}

T host_binary(const char* name, int op, const T& a, const T& b) {
  auto run = [&](auto fn) { return host::run<T>(name, fn, a, b); };
  switch (op) {
#define SCORCH_VK_HOST_CASE(code, kernel) \
  case code: return run([](auto&& x, auto&& y) { return cpuk::kernel(x, y); });
    SCORCH_VK_HOST_BINARY(SCORCH_VK_HOST_CASE)
#undef SCORCH_VK_HOST_CASE
    case OP_REM: return run([](auto&& x, auto&& y) { return cpuk::remainder(x, y); });
    default: throw DeviceError(name, "no host form of this op");
  }
}

T host_scalar(const char* name, int op, const T& a, Scalar s) {
  auto run = [&](auto fn) { return host::run<T>(name, fn, a, s); };
  if (op == OP_REM) return run([](auto&& x, auto&& v) { return cpuk::remainder_scalar(x, v); });
  if (op != OP_POW) throw DeviceError(name, "no host form of this op");
  return run([](auto&& x, auto&& v) { return cpuk::powf_scalar(x, v); });
}

T map_unary(const char* name, int op, T x, bool numeric) {
  if (!numeric && !is_predicate(op)) require_float(name, x);
  if (x.dtype() == DType::Bool && op != OP_LOGICAL_NOT) throw DTypeError(name, "needs a numeric tensor, got bool");
  if (x.dtype() == DType::F64 && f32_only(op)) return host_unary(name, op, x);
  DType out_dtype = is_predicate(op) ? DType::Bool : x.dtype();
  T out = output_for(x, x.shape(), out_dtype);
  MapLaunch launch;
  launch.op = op;
  launch.kind = compute_kind(x.dtype());
  launch.a = &x;
  run_map(name, out, launch);
  return out;
}

T map_binary(const char* name, int op, T a, T b, bool int_only) {
  check_same_device(name, a, b);
  require_same_dtype(name, a, b);
  if (int_only) require_int(name, a);
  if (a.dtype() == DType::F64 && f32_only(op)) return host_binary(name, op, a, b);
  Shape shape = broadcast_shapes(name, a.shape(), b.shape());
  DType out_dtype = is_comparison(op) ? DType::Bool : a.dtype();
  T out = reusable(a, shape, out_dtype) ? a : output_for(b, shape, out_dtype);
  MapLaunch launch;
  launch.op = op;
  launch.form = FORM_BINARY;
  launch.kind = compute_kind(a.dtype());
  launch.a = &a;
  launch.b = &b;
  run_map(name, out, launch);
  return out;
}

T map_scalar(const char* name, int op, T a, Scalar s, bool int_only) {
  if (int_only) require_int(name, a);
  if (a.dtype() == DType::F64 && f32_only(op)) return host_scalar(name, op, a, s);
  DType out_dtype = is_comparison(op) ? DType::Bool : a.dtype();
  MapLaunch launch;
  launch.op = op;
  launch.form = FORM_SCALAR;
  launch.kind = compute_kind(a.dtype());
  // Comparisons of float tensors, or of int tensors with a fractional scalar, happen in double (as on Cpu) where
  // the scalar has no exact f32 or int form.
  if (is_comparison(op)) {
    double v = s.to_double();
    bool exact = is_float(a.dtype()) ? static_cast<double>(static_cast<float>(v)) == v || std::isnan(v)
                                     : !s.is_float() || v == std::trunc(v);
    if (!exact) {
      launch.kind = KIND_FLOAT;
      launch.wide_scalar = true;
    }
  }
  launch.scalar = s;
  T out = output_for(a, a.shape(), out_dtype);
  launch.a = &a;
  run_map(name, out, launch);
  return out;
}

namespace {

// Integer division and remainder by zero are reported (reading the divisor's zero test back), never left undefined.
void check_int_divisor(const char* op, const T& divisor) {
  if (!is_int(divisor.dtype()) || divisor.numel() == 0) return;
  TensorData zeros = into_data(equal_elem(divisor, Scalar(0)));
  auto bytes = zeros.bytes();
  if (std::any_of(bytes.begin(), bytes.end(), [](std::byte v) { return v != std::byte{0}; }))
    throw ValueError(op, "integer division by zero");
}
void check_int_scalar_divisor(const char* op, const T& x, Scalar s) {
  if (is_int(x.dtype()) && s.to_int() == 0 && s.to_double() == 0.0) throw ValueError(op, "integer division by zero");
}

}  // namespace

T div(T a, T b) {
  check_int_divisor("div", b);
  return map_binary("div", OP_DIV, std::move(a), std::move(b), false);
}

T remainder(T a, T b) {
  check_int_divisor("remainder", b);
  return map_binary("remainder", OP_REM, std::move(a), std::move(b), false);
}

T div_scalar(T a, Scalar s) {
  check_int_scalar_divisor("div_scalar", a, s);
  return map_scalar("div_scalar", OP_DIV, std::move(a), s, false);
}

T remainder_scalar(T a, Scalar s) {
  check_int_scalar_divisor("remainder_scalar", a, s);
  return map_scalar("remainder_scalar", OP_REM, std::move(a), s, false);
}

T powf_scalar(T a, Scalar s) {
  double e = s.to_double();
  if (e == 2.0 && a.dtype() != DType::F64) return map_binary("powf_scalar", OP_MUL, a, a, false);
  if (e == 0.5) return map_unary("powf_scalar", OP_SQRT, std::move(a), false);
  return map_scalar("powf_scalar", OP_POW, std::move(a), s, false);
}

T powi_scalar(T a, Scalar s) {
  if (is_float(a.dtype())) return powf_scalar(std::move(a), s);
  return map_scalar("powi_scalar", OP_POW, std::move(a), Scalar(s.to_int()), true);
}

T cast(T x, DType dtype) {
  if (x.dtype() == dtype) return x;
  T out(x.shape(), dtype, x.device());
  MapLaunch launch;
  launch.kind = compute_kind(x.dtype());
  launch.a = &x;
  run_map("cast", out, launch);
  return out;
}

T logical_not(T x) { return map_unary("logical_not", OP_LOGICAL_NOT, std::move(x), true); }

T bitwise_not(T x) {
  require_int("bitwise_not", x);
  return map_unary("bitwise_not", OP_BIT_NOT, std::move(x), true);
}

T mask_where(T x, T mask, T values) {
  check_same_device("mask_where", x, mask);
  check_same_device("mask_where", x, values);
  Shape shape = broadcast_shapes("mask_where", broadcast_shapes("mask_where", x.shape(), mask.shape()), values.shape());
  if (values.dtype() != x.dtype()) values = cast(std::move(values), x.dtype());
  if (mask.dtype() != DType::Bool) mask = cast(std::move(mask), DType::Bool);
  T out(shape, x.dtype(), x.device());
  MapLaunch launch;
  launch.form = FORM_WHERE;
  launch.kind = compute_kind(x.dtype());
  launch.a = &x;
  launch.b = &values;
  launch.c = &mask;
  run_map("mask_where", out, launch);
  return out;
}

T mask_fill(T x, T mask, Scalar value) {
  check_same_device("mask_fill", x, mask);
  Shape shape = broadcast_shapes("mask_fill", x.shape(), mask.shape());
  if (mask.dtype() != DType::Bool) mask = cast(std::move(mask), DType::Bool);
  T out(shape, x.dtype(), x.device());
  MapLaunch launch;
  launch.form = FORM_MASK_FILL;
  launch.kind = compute_kind(x.dtype());
  launch.a = &x;
  launch.c = &mask;
  launch.scalar = value;
  run_map("mask_fill", out, launch);
  return out;
}

}  // namespace scorch::backends::vulkan::kernels
