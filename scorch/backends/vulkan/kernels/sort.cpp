// Sorting on the device (sort.comp: a bitonic network per lane in shared memory, stable by source index) for dims of
// up to 2048 values; longer dims run the Cpu backend's stable sort on host copies (counted as host fallbacks).
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/backends/vulkan/kernels/host.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

constexpr size_t kMaxDeviceSort = 2048;  // sort.comp's shared arrays

struct SortPush {
  uint32_t x_addr[2], values_addr[2], indices_addr[2];
  int32_t x_offset, lanes, n, inner, padded;
};

// Sorts x's lanes along dim into values and/or indices (each fresh, x's shape); x contiguous, its dim ≤ 2048.
void sort_on_device(const char* name, const T& x, size_t dim, bool descending, const T* values, const T* indices) {
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
  int32_t spec[] = {static_cast<int32_t>(x.dtype()), descending ? 1 : 0, values ? 1 : 0, indices ? 1 : 0};
  std::string shader = variant(is_float(x.dtype()) ? "sort" : "sort_int", {x.dtype()});
  context_of(x).dispatch(shader, spec, &p, sizeof(p), static_cast<uint32_t>(std::min<size_t>(p.lanes, 65535)));
}

// The Cpu backend's fn on host copies where dim is longer than the device sort takes, else nullopt.
template <class R, class Fn>
std::optional<R> sort_on_host(const char* name, const T& x, size_t dim, bool descending, Fn fn) {
  check_dim_in_range(name, x, dim);
  if (x.shape()[dim] <= kMaxDeviceSort) return std::nullopt;
  return host::run<R>(name, fn, x, dim, descending);
}

}  // namespace

T sort(T x, size_t dim, bool descending) {
  auto on_host = [](auto&&... a) { return cpu::kernels::sort(a...); };
  if (auto sorted = sort_on_host<T>("sort", x, dim, descending, on_host)) return *sorted;
  x = contiguous(std::move(x));
  T values(x.shape(), x.dtype(), x.device());
  sort_on_device("sort", x, dim, descending, &values, nullptr);
  return values;
}

std::pair<T, T> sort_with_indices(T x, size_t dim, bool descending) {
  auto on_host = [](auto&&... a) { return cpu::kernels::sort_with_indices(a...); };
  if (auto sorted = sort_on_host<std::pair<T, T>>("sort_with_indices", x, dim, descending, on_host)) return *sorted;
  x = contiguous(std::move(x));
  T values(x.shape(), x.dtype(), x.device()), indices(x.shape(), DType::I64, x.device());
  sort_on_device("sort_with_indices", x, dim, descending, &values, &indices);
  return {std::move(values), std::move(indices)};
}

T argsort(T x, size_t dim, bool descending) {
  auto on_host = [](auto&&... a) { return cpu::kernels::argsort(a...); };
  if (auto sorted = sort_on_host<T>("argsort", x, dim, descending, on_host)) return *sorted;
  x = contiguous(std::move(x));
  T indices(x.shape(), DType::I64, x.device());
  sort_on_device("argsort", x, dim, descending, nullptr, &indices);
  return indices;
}

}  // namespace scorch::backends::vulkan::kernels
