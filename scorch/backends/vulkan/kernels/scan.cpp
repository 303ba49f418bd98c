// Cumulative ops on the device (scan.comp: one invocation per lane walking the dim, accumulating in double/int64 where
// the device has them, as the Cpu backend). On llvmpipe, whose invocations stop after 65535 loop iterations, a lane
// longer than that runs the Cpu kernel on host copies.
#include "scorch/backends/cpu/kernels/kernels.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/backends/vulkan/kernels/host.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

struct ScanPush {
  uint32_t x_addr[2], out_addr[2];
  int32_t x_offset, lanes, n, inner;
};

enum ScanOp : int32_t { kSum = 0, kProd = 1, kMin = 2, kMax = 3 };

// True when one invocation's loop iterations (its lanes times the dim) stay within llvmpipe's cap.
bool fits_llvmpipe(const detail::Context& ctx, size_t lanes, size_t n) {
  size_t per_invocation = (lanes + 65535 * 256 - 1) / (65535 * 256);
  return !ctx.info().name.starts_with("llvmpipe") || per_invocation * n <= 65000;
}

template <class HostFn> T scan(const char* name, T x, size_t dim, ScanOp op, HostFn on_host) {
  if (dim >= x.shape().rank())
    throw ShapeError(name, "dim " + std::to_string(dim) + " of a tensor of shape " + x.shape().to_string());
  if (x.numel() == 0) return T(x.shape(), x.dtype(), x.device());
  detail::Context& ctx = context_of(x);
  size_t n = x.shape()[dim], lanes = x.numel() / n, inner = 1;
  if (!fits_llvmpipe(ctx, lanes, n)) return host::run<T>(name, on_host, x, dim);
  for (size_t d = dim + 1; d < x.shape().rank(); ++d) inner *= x.shape()[d];
  x = contiguous(std::move(x));
  check_index_range(name, x);
  T out(x.shape(), x.dtype(), x.device());
  ScanPush p{};
  split_words(p.x_addr, address_of(x));
  split_words(p.out_addr, address_of(out));
  p.x_offset = static_cast<int32_t>(x.offset());
  p.lanes = static_cast<int32_t>(lanes);
  p.n = static_cast<int32_t>(n);
  p.inner = static_cast<int32_t>(inner);
  int32_t spec[] = {static_cast<int32_t>(x.dtype()), op, is_float(x.dtype()) ? 1 : 0};
  // Sums and products accumulate in double and int64 where the device has them, as the Cpu backend's; min and max
  // are exact in the dtype (a round trip through double would not keep a NaN's payload on every GPU).
  bool wide = (op == kSum || op == kProd) && ctx.info().float64 && ctx.info().int64;
  ctx.dispatch(wide ? "scan_wide" : variant("scan", {x.dtype()}), spec, &p, sizeof(p),
               groups_for(static_cast<int64_t>(lanes)));
  return out;
}

}  // namespace

T cumsum(T x, size_t dim) {
  return scan("cumsum", std::move(x), dim, kSum, [](auto&&... a) { return cpu::kernels::cumsum(a...); });
}
T cumprod(T x, size_t dim) {
  return scan("cumprod", std::move(x), dim, kProd, [](auto&&... a) { return cpu::kernels::cumprod(a...); });
}
T cummin(T x, size_t dim) {
  return scan("cummin", std::move(x), dim, kMin, [](auto&&... a) { return cpu::kernels::cummin(a...); });
}
T cummax(T x, size_t dim) {
  return scan("cummax", std::move(x), dim, kMax, [](auto&&... a) { return cpu::kernels::cummax(a...); });
}

}  // namespace scorch::backends::vulkan::kernels
