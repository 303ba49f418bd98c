// Sorting on the device (sort.comp: a bitonic network, stable by source index): a lane of up to 2048 values in one
// workgroup's shared memory; longer lanes through a scratch copy in log²-many dispatches (2048-blocks sorted in shared
// memory, then per stage the strides ≥ 2048 one dispatch each and the rest in shared memory again).
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

constexpr size_t kBlock = 2048;  // sort.comp's shared arrays

struct SortPush {
  uint32_t x_addr[2], values_addr[2], indices_addr[2], keys_addr[2], order_addr[2];
  int32_t x_offset, lanes, n, inner, padded, size, stride;
};

enum SortMode : int32_t { kWholeLane = 0, kFirstBlocks = 1, kGlobalStep = 2, kBlockSteps = 3 };

// Sorts x's lanes along dim into values and/or indices (each fresh, x's shape); x contiguous.
void sort_on_device(const char* name, const T& x, size_t dim, bool descending, const T* values, const T* indices) {
  check_dim_in_range(name, x, dim);
  if (x.numel() == 0) return;
  check_index_range(name, x);
  size_t n = x.shape()[dim], inner = 1, padded = 1;
  for (size_t d = dim + 1; d < x.shape().rank(); ++d) inner *= x.shape()[d];
  while (padded < n) padded *= 2;
  SortPush p{};
  split_words(p.x_addr, address_of(x));
  if (values) split_words(p.values_addr, address_of(*values));
  if (indices) split_words(p.indices_addr, address_of(*indices));
  p.x_offset = static_cast<int32_t>(x.offset());
  p.lanes = static_cast<int32_t>(x.numel() / n);
  p.n = static_cast<int32_t>(n);
  p.inner = static_cast<int32_t>(inner);
  p.padded = static_cast<int32_t>(padded);
  std::string shader = variant(is_float(x.dtype()) ? "sort" : "sort_int", {x.dtype()});
  detail::Context& ctx = context_of(x);
  auto run = [&](SortMode mode, uint32_t groups) {
    int32_t spec[] = {static_cast<int32_t>(x.dtype()), descending ? 1 : 0, values ? 1 : 0, indices ? 1 : 0, mode};
    ctx.dispatch(shader, spec, &p, sizeof(p), std::min<uint32_t>(groups, 65535));
  };
  if (padded <= kBlock) return run(kWholeLane, static_cast<uint32_t>(p.lanes));
  if (static_cast<size_t>(p.lanes) * padded > (size_t{1} << 31) - 1)
    throw DeviceError(name, "lanes of " + std::to_string(n) + " values padded to " + std::to_string(padded) + " (" +
                                x.shape().to_string() + ") pass the 2^31 elements a Vulkan sort's scratch indexes");
  T keys(Shape{static_cast<size_t>(p.lanes), padded}, x.dtype(), x.device());
  T order(Shape{static_cast<size_t>(p.lanes), padded}, DType::I32, x.device());
  check_index_range(name, keys);
  split_words(p.keys_addr, address_of(keys));
  split_words(p.order_addr, address_of(order));
  auto blocks = static_cast<uint32_t>(std::min<size_t>(p.lanes * (padded / kBlock), 65535));
  run(kFirstBlocks, blocks);
  for (size_t size = 2 * kBlock; size <= padded; size *= 2) {
    p.size = static_cast<int32_t>(size);
    for (size_t stride = size / 2; stride >= kBlock; stride /= 2) {
      p.stride = static_cast<int32_t>(stride);
      run(kGlobalStep, groups_for(static_cast<int64_t>(p.lanes * padded / 2)));
    }
    run(kBlockSteps, blocks);
  }
}

}  // namespace

T sort(T x, size_t dim, bool descending) {
  x = contiguous(std::move(x));
  T values(x.shape(), x.dtype(), x.device());
  sort_on_device("sort", x, dim, descending, &values, nullptr);
  return values;
}

std::pair<T, T> sort_with_indices(T x, size_t dim, bool descending) {
  x = contiguous(std::move(x));
  T values(x.shape(), x.dtype(), x.device()), indices(x.shape(), DType::I64, x.device());
  sort_on_device("sort_with_indices", x, dim, descending, &values, &indices);
  return {std::move(values), std::move(indices)};
}

T argsort(T x, size_t dim, bool descending) {
  x = contiguous(std::move(x));
  T indices(x.shape(), DType::I64, x.device());
  sort_on_device("argsort", x, dim, descending, nullptr, &indices);
  return indices;
}

}  // namespace scorch::backends::vulkan::kernels
