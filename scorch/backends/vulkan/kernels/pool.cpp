// Pooling on the device (pool.comp, pool_scatter.comp): average and max pooling over 1 to 3 spatial dims with their
// input gradients, and adaptive max pooling. f16/bf16 compute in f32 as on Cpu; max pooling's gradient adds with f32
// atomics (f64, or a device without VK_EXT_shader_atomic_float, runs the Cpu kernel on host copies).
#include <algorithm>
#include <array>

#include "scorch/backend/module_shapes.h"
#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/backends/vulkan/kernels/host.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

using Dims3 = std::array<int32_t, 3>;

/// pool.comp's PoolParams (std430).
struct PoolParams {
  uint32_t src_addr[2], dst_addr[2], index_addr[2];
  int32_t total, include_pad, pad0, pad1;
  Dims3 in_size, out_size, kernel, stride, padding, dilation;
};
static_assert(sizeof(PoolParams) == 112, "must match pool.comp");

enum PoolMode : int32_t { kAvg = 0, kAvgBackward = 1, kMax = 2, kAdaptiveMax = 3 };

// dims (one per spatial dim) right-aligned into 3, fill before.
Dims3 pad3(const std::vector<size_t>& dims, int32_t fill) {
  Dims3 out{fill, fill, fill};
  for (size_t d = 0; d < dims.size(); ++d) out[3 - dims.size() + d] = static_cast<int32_t>(dims[d]);
  return out;
}
std::vector<size_t> spatial(const Shape& s) { return std::vector<size_t>(s.begin() + 2, s.end()); }

// x's pooled shape under spec (PyTorch's sizes, ceil_mode included) and the window geometry.
PoolParams pool_geometry(const Shape& x, const PoolSpec& spec, Shape& out_shape) {
  size_t s = x.rank() - 2;
  out_shape = x;
  std::vector<size_t> out(s);
  for (size_t d = 0; d < s; ++d) {
    out[d] = static_cast<size_t>(module_shapes::pool_out(x[d + 2], spec.kernel[d], spec.stride[d], spec.padding[d],
                                                         spec.dilation[d], spec.ceil_mode));
    out_shape[d + 2] = out[d];
  }
  PoolParams p{};
  p.in_size = pad3(spatial(x), 1);
  p.out_size = pad3(out, 1);
  p.kernel = pad3(spec.kernel, 1);
  p.stride = pad3(spec.stride, 1);
  p.padding = pad3(spec.padding, 0);
  p.dilation = pad3(spec.dilation, 1);
  p.include_pad = spec.count_include_pad ? 1 : 0;
  return p;
}

void run_pool(const char* op, PoolParams p, const T& src, const T& dst, const T* indices, PoolMode mode) {
  p.total = static_cast<int32_t>(dst.numel());
  if (p.total == 0) return;
  for (const T* x : {&src, &dst}) check_index_range(op, *x);
  if (indices) check_index_range(op, *indices);
  split_words(p.src_addr, address_of(src));
  split_words(p.dst_addr, address_of(dst));
  if (indices) split_words(p.index_addr, address_of(*indices));
  uint32_t push[2] = {0, 0};  // the parameter block's address
  int32_t spec[] = {static_cast<int32_t>(src.dtype()), mode};
  context_of(src).dispatch_with_params(variant("pool", {src.dtype()}), spec, &p, sizeof(p), push, sizeof(push),
                                       groups_for(p.total));
}

std::pair<T, T> max_pool_as(const char* op, T x, PoolParams p, const Shape& out_shape, PoolMode mode) {
  T values(out_shape, x.dtype(), x.device()), indices(out_shape, DType::I64, x.device());
  run_pool(op, p, x, values, &indices, mode);
  return {std::move(values), std::move(indices)};
}

struct ScatterPush {
  uint32_t grad_addr[2], index_addr[2], acc_addr[2], status_addr[2];
  int32_t total, out_count, in_count;
};

}  // namespace

T avg_pool(T x, const PoolSpec& spec) {
  x = dense_from_start(std::move(x));
  Shape out_shape;
  PoolParams p = pool_geometry(x.shape(), spec, out_shape);
  T out(out_shape, x.dtype(), x.device());
  run_pool("avg_pool", p, x, out, nullptr, kAvg);
  return out;
}

T avg_pool_backward(T x, T grad, const PoolSpec& spec) {
  grad = dense_from_start(cast(std::move(grad), x.dtype()));
  Shape out_shape;
  PoolParams p = pool_geometry(x.shape(), spec, out_shape);
  if (!(grad.shape() == out_shape))
    throw ShapeError("avg_pool_backward",
                     "grad " + grad.shape().to_string() + " for an output of " + out_shape.to_string());
  T dx(x.shape(), x.dtype(), x.device());
  run_pool("avg_pool_backward", p, grad, dx, nullptr, kAvgBackward);
  return dx;
}

std::pair<T, T> max_pool_with_indices(T x, const PoolSpec& spec) {
  x = dense_from_start(std::move(x));
  Shape out_shape;
  PoolParams p = pool_geometry(x.shape(), spec, out_shape);
  return max_pool_as("max_pool_with_indices", std::move(x), p, out_shape, kMax);
}

std::pair<T, T> adaptive_max_pool_with_indices(T x, const SpatialDims& output_size) {
  x = dense_from_start(std::move(x));
  Shape out_shape = x.shape();
  for (size_t d = 0; d < output_size.size(); ++d) out_shape[d + 2] = output_size[d];
  for (size_t d = 2; d < x.shape().rank(); ++d)
    if (x.shape()[d] == 0 && out_shape[d] > 0)
      throw ShapeError("adaptive_max_pool", "input " + x.shape().to_string() + " has an empty dim");
  PoolParams p{};
  p.in_size = pad3(spatial(x.shape()), 1);
  p.out_size = pad3(output_size, 1);
  size_t window = 1;  // the largest adaptive window's cells (llvmpipe's loop cap)
  for (size_t d = 0; d < 3; ++d) window *= (p.in_size[d] + p.out_size[d] - 1) / std::max(p.out_size[d], 1) + 1;
  if (exceeds_loop_cap(context_of(x), window))
    return host::run<std::pair<T, T>>(
        "adaptive_max_pool_with_indices",
        [](auto&&... a) { return cpu::kernels::adaptive_max_pool_with_indices(a...); }, x, output_size);
  return max_pool_as("adaptive_max_pool_with_indices", std::move(x), p, out_shape, kAdaptiveMax);
}

T max_pool_backward(T x, T grad, T indices) {
  detail::Context& ctx = context_of(x);
  if (x.dtype() == DType::F64 || !ctx.info().float32_atomic_add)
    return host::run<T>(
        "max_pool_backward", [](auto&&... a) { return cpu::kernels::max_pool_backward(a...); }, x, grad, indices);
  grad = dense_from_start(cast(std::move(grad), x.dtype()));
  indices = dense_from_start(cast(std::move(indices), DType::I64));
  size_t planes = x.shape()[0] * x.shape()[1];
  T acc = full(x.shape(), Scalar(0.0), x.device(), DType::F32);
  if (grad.numel() == 0 || planes == 0) return cast(std::move(acc), x.dtype());
  for (const T* t : {&grad, &indices, &acc}) check_index_range("max_pool_backward", *t);
  ScatterPush p{};
  split_words(p.grad_addr, address_of(grad));
  split_words(p.index_addr, address_of(indices));
  split_words(p.acc_addr, address_of(acc));
  split_words(p.status_addr, ctx.status_address());
  p.total = static_cast<int32_t>(grad.numel());
  p.out_count = static_cast<int32_t>(grad.numel() / planes);
  p.in_count = static_cast<int32_t>(x.numel() / planes);
  int32_t spec[] = {static_cast<int32_t>(grad.dtype())};
  ctx.dispatch("pool_scatter", spec, &p, sizeof(p), groups_for(p.total));
  return cast(std::move(acc), x.dtype());
}

}  // namespace scorch::backends::vulkan::kernels
