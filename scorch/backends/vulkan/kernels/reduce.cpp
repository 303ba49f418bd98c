// Reductions along a dim (reduce.comp): sum, mean, prod, max, min, argmax, argmin, and the whole-tensor sum and
// prod. They accumulate as the Cpu backend does (double for floats, int64 for ints) where the device has 64-bit
// types; an empty dim gives PyTorch's identity or error (backends/common/empty_reduce.h).
#include "scorch/backends/common/empty_reduce.h"
#include "scorch/backends/common/strided_layout.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

Shape keep_dim(Shape s, size_t dim) {
  s[dim] = 1;
  return s;
}

void check_dim(const char* name, const T& x, size_t dim) {
  check_dim_in_range(name, x, dim);
  if (x.dtype() == DType::Bool) throw DTypeError(name, "needs a numeric tensor, got bool");
}

constexpr size_t kLaneLimit = 16384;
constexpr size_t kLlvmpipeLimit = size_t{256} * 60000;

struct ReducePush {
  uint32_t a_addr[2], out_addr[2];
  int32_t a_offset, out_offset, outer, n, inner;
  int32_t codes;  // op, dtypes and kind for the DYNAMIC pipelines (reduce.comp)
};

T fold(const char* name, int op, EmptyFold empty, T x, size_t dim) {
  check_dim(name, x, dim);
  bool arg = op == RED_ARGMAX || op == RED_ARGMIN;
  DType out_dtype = arg ? DType::I64 : x.dtype();
  Shape out_shape = keep_dim(x.shape(), dim);
  if (x.shape()[dim] == 0) {
    Scalar value = empty_fold_value(name, empty, x.dtype(), x.shape(), dim);
    return full(out_shape, value, x.device(), out_dtype);
  }
  size_t n = x.shape()[dim], inner_size = 1;
  for (size_t d = dim + 1; d < x.shape().rank(); ++d) inner_size *= x.shape()[d];
  // One invocation per output walks at most kLaneLimit values; a longer dim is made the last (one workgroup each).
  if (inner_size > 1 && n > kLaneLimit) {
    x = strided_layout::swap_dims(std::move(x), dim, x.shape().rank() - 1);
    Shape swapped = x.shape();
    T folded = fold(name, op, empty, contiguous(std::move(x)), swapped.rank() - 1);
    return strided_layout::swap_dims(std::move(folded), dim, swapped.rank() - 1);
  }
  detail::Context& ctx = context_of(x);
  if (ctx.info().name.starts_with("llvmpipe") && n > kLlvmpipeLimit)
    throw DeviceError(name, "llvmpipe runs at most 65535 loop iterations per invocation: a reduction over " +
                                std::to_string(n) + " values (more than " + std::to_string(kLlvmpipeLimit) +
                                ") needs a GPU driver");
  x = contiguous(std::move(x));
  check_index_range(name, x);
  T out(out_shape, out_dtype, x.device());
  if (out.numel() == 0) return out;
  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= x.shape()[d];
  for (size_t d = dim + 1; d < x.shape().rank(); ++d) inner *= x.shape()[d];
  ReducePush p;
  split_words(p.a_addr, address_of(x));
  split_words(p.out_addr, address_of(out));
  p.a_offset = static_cast<int32_t>(x.offset());
  p.out_offset = 0;
  p.outer = static_cast<int32_t>(outer);
  p.n = static_cast<int32_t>(x.shape()[dim]);
  p.inner = static_cast<int32_t>(inner);
  // A contiguous dim of more than 64 values gets a workgroup per output (coalesced reads); else a lane each.
  bool lanes = inner > 1 || n <= 64;
  int32_t kind = is_float(x.dtype()) ? KIND_FLOAT : KIND_INT;
  bool dynamic = ctx.dynamic_for(x.numel());
  p.codes = op | static_cast<int32_t>(out_dtype) << 8 | static_cast<int32_t>(x.dtype()) << 12 | kind << 24;
  int32_t spec[] = {dynamic ? 0 : op,
                    dynamic ? 0 : static_cast<int32_t>(out_dtype),
                    dynamic ? 0 : static_cast<int32_t>(x.dtype()),
                    dynamic ? 0 : kind,
                    lanes ? 1 : 0,
                    dynamic ? 1 : 0};
  const DeviceInfo& info = ctx.info();
  bool wide = info.float64 && info.int64;
  std::string shader = wide ? "reduce_wide" : variant("reduce", {x.dtype(), out_dtype});
  uint32_t groups = lanes ? groups_for(static_cast<int64_t>(outer * inner)) : groups_for(256 * outer);
  ctx.dispatch(shader, spec, &p, sizeof(p), groups);
  return out;
}

T flatten(T x) { return reshape(std::move(x), Shape{x.numel()}); }

}  // namespace

T sum_dim(T x, size_t dim) { return fold("sum_dim", RED_SUM, EmptyFold::Sum, std::move(x), dim); }
T mean_dim(T x, size_t dim) { return fold("mean_dim", RED_MEAN, EmptyFold::Mean, std::move(x), dim); }
T prod_dim(T x, size_t dim) { return fold("prod_dim", RED_PROD, EmptyFold::Prod, std::move(x), dim); }
T max_dim(T x, size_t dim) { return fold("max_dim", RED_MAX, EmptyFold::Extreme, std::move(x), dim); }
T min_dim(T x, size_t dim) { return fold("min_dim", RED_MIN, EmptyFold::Extreme, std::move(x), dim); }
T argmax(T x, size_t dim) { return fold("argmax", RED_ARGMAX, EmptyFold::Extreme, std::move(x), dim); }
T argmin(T x, size_t dim) { return fold("argmin", RED_ARGMIN, EmptyFold::Extreme, std::move(x), dim); }

T sum(T x) {
  if (x.numel() == 0) return full(Shape{1}, Scalar(0), x.device(), x.dtype());
  return sum_dim(flatten(std::move(x)), 0);
}
T prod(T x) {
  if (x.numel() == 0) return full(Shape{1}, Scalar(1), x.device(), x.dtype());
  return prod_dim(flatten(std::move(x)), 0);
}

}  // namespace scorch::backends::vulkan::kernels
