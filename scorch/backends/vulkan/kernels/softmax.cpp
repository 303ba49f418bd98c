// Softmax and log-softmax in one dispatch (softmax.comp) for f32, f16 and bf16; f64 through the kernels' composition
// (its exp runs on the host: GLSL has no double exp).
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

struct SoftmaxPush {
  uint32_t x_addr[2], out_addr[2];
  int32_t x_offset, outer, n, inner;
};

T softmax_as(const char* name, T x, size_t dim, bool log) {
  if (dim >= x.shape().rank())
    throw ShapeError(name, "dim " + std::to_string(dim) + " of a tensor of shape " + x.shape().to_string());
  if (x.numel() == 0) return x;  // an empty dim has no max; its softmax is empty too
  if (x.dtype() == DType::F64) {
    T shifted = sub(x, max_dim(x, dim));
    if (log) return sub(shifted, kernels::log(sum_dim(exp(shifted), dim)));
    T e = exp(std::move(shifted));
    return div(e, sum_dim(e, dim));
  }
  x = contiguous(std::move(x));
  check_index_range(name, x);
  T out(x.shape(), x.dtype(), x.device());
  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < dim; ++d) outer *= x.shape()[d];
  for (size_t d = dim + 1; d < x.shape().rank(); ++d) inner *= x.shape()[d];
  SoftmaxPush p{};
  split_words(p.x_addr, address_of(x));
  split_words(p.out_addr, address_of(out));
  p.x_offset = static_cast<int32_t>(x.offset());
  p.outer = static_cast<int32_t>(outer);
  p.n = static_cast<int32_t>(x.shape()[dim]);
  p.inner = static_cast<int32_t>(inner);
  bool rows = inner == 1;  // a workgroup per row; else a lane per (outer, inner) pair
  int32_t spec[] = {static_cast<int32_t>(x.dtype()), log ? 1 : 0, rows ? 1 : 0};
  uint32_t groups =
      rows ? static_cast<uint32_t>(std::min<size_t>(outer, 65535)) : groups_for(static_cast<int64_t>(outer * inner));
  context_of(x).dispatch("softmax", spec, &p, sizeof(p), groups);
  return out;
}

}  // namespace

T softmax(T x, size_t dim) { return softmax_as("softmax", std::move(x), dim, false); }
T log_softmax(T x, size_t dim) { return softmax_as("log_softmax", std::move(x), dim, true); }

}  // namespace scorch::backends::vulkan::kernels
