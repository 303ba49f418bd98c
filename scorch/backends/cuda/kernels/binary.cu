#include <algorithm>

#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace so = scalar_ops;
namespace {

// Integer division and remainder by zero are reported, never left undefined (reads the divisor back).
void check_int_divisor(const char* op, const T& divisor) {
  if (!is_int(divisor.dtype()) || divisor.numel() == 0) return;
  TensorData zeros = into_data(equal_elem(divisor, Scalar(0)));
  auto bytes = zeros.bytes();
  if (std::any_of(bytes.begin(), bytes.end(), [](std::byte b) { return b != std::byte{0}; }))
    throw ValueError(op, "integer division by zero");
}

void check_int_scalar_divisor(const char* op, const T& x, Scalar s) {
  if (is_int(x.dtype()) && s.to_int() == 0 && s.to_double() == 0.0) throw ValueError(op, "integer division by zero");
}

/// grad where output > 0 (or NaN), 0 where output ≤ 0: relu's gradient from its output, in one pass.
struct ReluGrad {
  template <class C> __host__ __device__ C operator()(C grad, C output) const {
    return output <= C(0) ? C(0) : grad;
  }
};

}  // namespace

T relu_grad(T grad, T output) {
  if (output.dtype() != grad.dtype())  // compare output in its own dtype
    return mask_fill(std::move(grad), lower_equal_elem(output, Scalar(0)), Scalar(0));
  return binary_numeric("relu_grad", std::move(grad), std::move(output), ReluGrad{});
}

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
  DType d = a.dtype();
  return binary_numeric("powi", std::move(a), cast(std::move(b), d), so::IntPow{});
}

T div_scalar(T a, Scalar s) {
  check_int_scalar_divisor("div_scalar", a, s);
  return scalar_numeric("div_scalar", std::move(a), s, so::Div{});
}
T remainder_scalar(T a, Scalar s) {
  check_int_scalar_divisor("remainder_scalar", a, s);
  return scalar_numeric("remainder_scalar", std::move(a), s, so::Remainder{});
}

}  // namespace scorch::backends::cuda::kernels
