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

enum ScanOp : int32_t { kScanSum = 0, kScanProd = 1, kScanMin = 2, kScanMax = 3 };

template <class HostFn> T scan(const char* name, T x, size_t dim, ScanOp op, HostFn on_host) {
  check_dim_in_range(name, x, dim);
  if (x.numel() == 0) return T(x.shape(), x.dtype(), x.device());
  detail::Context& ctx = context_of(x);
  size_t n = x.shape()[dim], lanes = x.numel() / n;
  size_t lanes_per_invocation = (lanes + 65535 * 256 - 1) / (65535 * 256);
  if (exceeds_loop_cap(ctx, lanes_per_invocation * n)) return host::run<T>(name, on_host, x, dim);
  x = contiguous(std::move(x));
  check_index_range(name, x);
  T out(x.shape(), x.dtype(), x.device());
  LanePush p = lanes_push(x, out, dim);
  int32_t spec[] = {static_cast<int32_t>(x.dtype()), op, is_float(x.dtype()) ? 1 : 0};
  // Sums and products accumulate in double and int64 where the device has them, as the Cpu backend's; min and max
  // are exact in the dtype (a round trip through double would not keep a NaN's payload on every GPU).
  bool wide = (op == kScanSum || op == kScanProd) && ctx.info().float64 && ctx.info().int64;
  ctx.dispatch(wide ? "scan_wide" : variant("scan", {x.dtype()}), spec, &p, sizeof(p),
               groups_for(static_cast<int64_t>(lanes)));
  return out;
}

}  // namespace

T cumsum(T x, size_t dim) {
  return scan("cumsum", std::move(x), dim, kScanSum, [](auto&&... a) { return cpu::kernels::cumsum(a...); });
}
T cumprod(T x, size_t dim) {
  return scan("cumprod", std::move(x), dim, kScanProd, [](auto&&... a) { return cpu::kernels::cumprod(a...); });
}
T cummin(T x, size_t dim) {
  return scan("cummin", std::move(x), dim, kScanMin, [](auto&&... a) { return cpu::kernels::cummin(a...); });
}
T cummax(T x, size_t dim) {
  return scan("cummax", std::move(x), dim, kScanMax, [](auto&&... a) { return cpu::kernels::cummax(a...); });
}

}  // namespace scorch::backends::vulkan::kernels
