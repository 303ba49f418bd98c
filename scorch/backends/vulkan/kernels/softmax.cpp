// Softmax and log-softmax in one dispatch (softmax.comp) for f32, f16 and bf16; f64 through the kernels' composition
// (its exp runs on the host: GLSL has no double exp), as are lanes past llvmpipe's loop cap.
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

T softmax_as(const char* name, T x, size_t dim, bool log) {
  check_dim_in_range(name, x, dim);
  if (x.numel() == 0) return x;  // an empty dim has no max; its softmax is empty too
  size_t n = x.shape()[dim], inner = x.numel() / n;
  for (size_t d = 0; d < dim; ++d) inner /= x.shape()[d];
  // A lane per column walks the dim three times: past llvmpipe's loop cap, the kernels' composition instead.
  bool capped = inner > 1 && exceeds_loop_cap(context_of(x), 3 * n * ((x.numel() / n + 16776959) / 16776960));
  if (x.dtype() == DType::F64 || capped) {
    T shifted = sub(x, max_dim(x, dim));
    if (log) return sub(shifted, kernels::log(sum_dim(exp(shifted), dim)));
    T e = exp(std::move(shifted));
    return div(e, sum_dim(e, dim));
  }
  x = contiguous(std::move(x));
  check_index_range(name, x);
  T out(x.shape(), x.dtype(), x.device());
  LanePush p = lanes_push(x, out, dim);
  bool rows = p.inner == 1;  // a workgroup per row; else a lane per (outer, inner) pair
  int32_t spec[] = {static_cast<int32_t>(x.dtype()), log ? 1 : 0, rows ? 1 : 0};
  uint32_t groups = rows ? static_cast<uint32_t>(std::min<int32_t>(p.lanes, 65535)) : groups_for(p.lanes);
  context_of(x).dispatch("softmax", spec, &p, sizeof(p), groups);
  return out;
}

}  // namespace

T softmax(T x, size_t dim) { return softmax_as("softmax", std::move(x), dim, false); }
T log_softmax(T x, size_t dim) { return softmax_as("log_softmax", std::move(x), dim, true); }

}  // namespace scorch::backends::vulkan::kernels
