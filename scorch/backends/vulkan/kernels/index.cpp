// Index ops on the device (index.comp): gather and select, and their adjoints scatter_add and select_add. An index out
// of range is never read: the shader reports it and the next read throws the ShapeError (the Cuda backend reads the
// indices back at once instead; here no op waits).
#include "scorch/backends/common/strides.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

/// index.comp's IndexParams (std430).
struct IndexParams {
  uint32_t x_addr[2], index_addr[2], out_addr[2];
  int32_t total, rank, dim, n, inner, count;
  int32_t out_shape[kMaxRank];
  int32_t x_strides[kMaxRank];
  int32_t index_shape[kMaxRank];
  uint32_t values_addr[2];
  uint32_t status_addr[2];
};

// indices as contiguous i64 from their buffer's start (their range is checked by the shader, context.h's status words).
T as_indices(T indices) { return dense_from_start(cast(std::move(indices), DType::I64)); }

// The parameters of select and select_add: x viewed as [outer, n, inner] around dim, count indices.
IndexParams along_dim(const T& x, size_t dim, size_t count) {
  IndexParams p{};
  size_t inner = 1;
  for (size_t d = dim + 1; d < x.shape().rank(); ++d) inner *= x.shape()[d];
  p.dim = static_cast<int32_t>(dim);
  p.n = static_cast<int32_t>(x.shape()[dim]);
  p.inner = static_cast<int32_t>(inner);
  p.count = static_cast<int32_t>(count);
  return p;
}

void run_index(const char* op, IndexParams p, const T& x, const T& indices, const T& out, int mode) {
  if (out.numel() == 0) {
    // No element to run: every index of a dim of size 0 is out of range all the same.
    if (p.n == 0 && indices.numel() > 0) {
      int64_t first = into_data(reshape(indices, Shape{indices.numel()})).to_vector<int64_t>()[0];
      throw ShapeError(op, "index " + std::to_string(first) + " is out of range for a dim of size 0");
    }
    return;
  }
  check_index_range(op, x);
  check_index_range(op, out);
  check_index_range(op, indices);
  split_words(p.x_addr, address_of(x));
  split_words(p.index_addr, address_of(indices));
  split_words(p.out_addr, address_of(out));
  p.total = static_cast<int32_t>(out.numel());
  detail::Context& ctx = context_of(x);
  split_words(p.status_addr, ctx.status_address());
  uint32_t push[2] = {0, 0};  // the parameter block's address
  int32_t spec[] = {static_cast<int32_t>(x.dtype()), mode};
  ctx.dispatch_with_params(variant("index", {x.dtype()}), spec, &p, sizeof(p), push, sizeof(push), groups_for(p.total));
}

}  // namespace

T gather(size_t dim, T x, T indices) {
  if (indices.shape().rank() != x.shape().rank())
    throw ShapeError(
        "gather", "indices " + indices.shape().to_string() + " and input " + x.shape().to_string() + " differ in rank");
  for (size_t d = 0; d < x.shape().rank(); ++d)
    if (d != dim && indices.shape()[d] > x.shape()[d])
      throw ShapeError("gather", "indices " + indices.shape().to_string() + " exceed input " + x.shape().to_string() +
                                     " along dim " + std::to_string(d));
  x = dense_from_start(std::move(x));
  indices = as_indices(std::move(indices));
  T out(indices.shape(), x.dtype(), x.device());
  IndexParams p{};
  p.rank = static_cast<int32_t>(x.shape().rank());
  p.dim = static_cast<int32_t>(dim);
  p.n = static_cast<int32_t>(x.shape()[dim]);
  Strides s = contiguous_strides(x.shape());
  for (size_t d = 0; d < x.shape().rank(); ++d) {
    p.out_shape[d] = static_cast<int32_t>(indices.shape()[d]);
    p.x_strides[d] = static_cast<int32_t>(s[d]);
  }
  run_index("gather", p, x, indices, out, 0);
  return out;
}

T select(T x, size_t dim, T indices) {
  x = dense_from_start(std::move(x));
  indices = as_indices(std::move(indices));
  Shape shape = x.shape();
  shape[dim] = indices.numel();
  T out(shape, x.dtype(), x.device());
  IndexParams p = along_dim(x, dim, indices.numel());
  run_index("select", p, x, indices, out, 1);
  return out;
}

T scatter_add(size_t dim, T x, T indices, T values) {
  if (indices.shape().rank() != x.shape().rank() || !(values.shape() == indices.shape()))
    throw ShapeError("scatter_add", "input " + x.shape().to_string() + ", indices " + indices.shape().to_string() +
                                        " and values " + values.shape().to_string() + " do not match");
  for (size_t d = 0; d < x.shape().rank(); ++d)
    if (d != dim && indices.shape()[d] > x.shape()[d])
      throw ShapeError("scatter_add", "indices " + indices.shape().to_string() + " exceed input " +
                                          x.shape().to_string() + " along dim " + std::to_string(d));
  x = dense_from_start(std::move(x));
  indices = as_indices(std::move(indices));
  values = dense_from_start(cast(std::move(values), x.dtype()));
  T out(x.shape(), x.dtype(), x.device());
  IndexParams p{};
  p.rank = static_cast<int32_t>(x.shape().rank());
  p.dim = static_cast<int32_t>(dim);
  p.n = static_cast<int32_t>(x.shape()[dim]);
  for (size_t d = 0; d < x.shape().rank(); ++d) {
    p.out_shape[d] = static_cast<int32_t>(x.shape()[d]);
    p.index_shape[d] = static_cast<int32_t>(indices.shape()[d]);
  }
  split_words(p.values_addr, address_of(values));
  run_index("scatter_add", p, x, indices, out, 2);
  return out;
}

T select_add(T x, size_t dim, T indices, T values) {
  Shape expected = x.shape();
  expected[dim] = indices.numel();
  if (!(values.shape() == expected))
    throw ShapeError("select_add", "values " + values.shape().to_string() + " should be " + expected.to_string());
  x = dense_from_start(std::move(x));
  indices = as_indices(std::move(indices));
  values = dense_from_start(cast(std::move(values), x.dtype()));
  T out(x.shape(), x.dtype(), x.device());
  IndexParams p = along_dim(x, dim, indices.numel());
  split_words(p.values_addr, address_of(values));
  run_index("select_add", p, x, indices, out, 3);
  return out;
}

}  // namespace scorch::backends::vulkan::kernels
