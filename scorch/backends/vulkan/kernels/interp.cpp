// Interpolation on the device (interp.comp): nearest, linear and cubic over 1 to 3 spatial dims with the Cpu's
// coordinate rules, and its input gradient gathered per input position (deterministic, no atomics). f16/bf16 compute
// in f32 as on Cpu. A gradient whose gather would pass llvmpipe's loop cap runs the Cpu kernel on host copies.
#include <algorithm>
#include <array>
#include <cmath>

#include "scorch/backends/cpu/kernels/module_kernels.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/backends/vulkan/kernels/host.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

/// interp.comp's push constants.
struct InterpPush {
  uint32_t src_addr[2], dst_addr[2];
  int32_t total, flags;
  std::array<int32_t, 3> in_size, out_size;
};
static_assert(sizeof(InterpPush) == 48, "must match interp.comp");

enum InterpMode : int32_t { kForward = 0, kBackward = 1 };

// The geometry of interpolating an image of x_shape by spec (spatial dims right-aligned into 3).
InterpPush interp_geometry(const Shape& x_shape, const InterpolateSpec& spec) {
  InterpPush p{};
  p.in_size = {1, 1, 1};
  p.out_size = {1, 1, 1};
  size_t s = x_shape.rank() - 2;
  p.flags = static_cast<int32_t>(spec.mode) | (spec.align_corners ? 4 : 0);
  for (size_t d = 0; d < s; ++d) {
    size_t k = 3 - s + d;
    p.in_size[k] = static_cast<int32_t>(x_shape[d + 2]);
    p.out_size[k] = static_cast<int32_t>(spec.output_size[d]);
    p.flags |= 1 << (3 + k);
  }
  return p;
}

// The most loop iterations one input position's gradient runs: per dim, the outputs interp.comp's reaching() visits
// (about 4 / scale + 4) times their taps.
size_t gather_iterations(const InterpPush& p) {
  static constexpr double kTaps[] = {1, 2, 4};  // nearest, linear, cubic
  size_t total = 1;
  for (size_t d = 0; d < 3; ++d) {
    if (((p.flags >> (3 + d)) & 1) == 0) continue;  // a unit dim
    double scale = static_cast<double>(p.in_size[d]) / std::max(p.out_size[d], 1);
    double outputs = std::min<double>(scale > 0 ? std::ceil(4 / scale) + 4 : p.out_size[d], p.out_size[d]);
    total *= static_cast<size_t>(outputs * kTaps[p.flags & 3]);
  }
  return total;
}

void run_interp(const char* op, InterpPush p, const T& src, const T& dst, InterpMode mode) {
  p.total = static_cast<int32_t>(dst.numel());
  if (p.total == 0) return;
  check_index_range(op, src);
  check_index_range(op, dst);
  split_words(p.src_addr, address_of(src));
  split_words(p.dst_addr, address_of(dst));
  int32_t spec[] = {static_cast<int32_t>(src.dtype()), mode};
  context_of(src).dispatch(variant("interp", {src.dtype()}), spec, &p, sizeof(p), groups_for(p.total));
}

}  // namespace

T interpolate(T x, const InterpolateSpec& spec) {
  x = dense_from_start(std::move(x));
  Shape out_shape = x.shape();
  for (size_t d = 0; d < spec.output_size.size(); ++d) out_shape[d + 2] = spec.output_size[d];
  T out(out_shape, x.dtype(), x.device());
  if (x.numel() == 0) return full(out_shape, Scalar(0.0), x.device(), x.dtype());
  run_interp("interpolate", interp_geometry(x.shape(), spec), x, out, kForward);
  return out;
}

T interpolate_backward(T x, T grad, const InterpolateSpec& spec) {
  InterpPush p = interp_geometry(x.shape(), spec);
  size_t rounds = (x.numel() + 65535 * 256 - 1) / (65535 * 256);  // input positions per invocation (grid stride)
  if (exceeds_loop_cap(context_of(x), gather_iterations(p) * std::max<size_t>(rounds, 1)))
    return host::run<T>(
        "interpolate_backward", [](auto&&... a) { return cpu::kernels::interpolate_backward(a...); }, x, grad, spec);
  grad = dense_from_start(cast(std::move(grad), x.dtype()));
  T dx(x.shape(), x.dtype(), x.device());
  if (grad.numel() == 0) return full(x.shape(), Scalar(0.0), x.device(), x.dtype());
  run_interp("interpolate_backward", p, grad, dx, kBackward);
  return dx;
}

}  // namespace scorch::backends::vulkan::kernels
