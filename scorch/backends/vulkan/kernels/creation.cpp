// Creation, transfer and host-copy kernels: from_data/into_data through staging buffers, empty, full, to_device,
// and the host adapter's conversions (host.h).
#include <bit>
#include <cstring>

#include "scorch/backends/common/random_stream.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/backends/vulkan/kernels/host.h"
#include "scorch/gen/cpu_kernel_ops.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan {
namespace kernels {
using T = VulkanTensor;

namespace {
VkBuffer buffer_of(const T& x) { return reinterpret_cast<VkBuffer>(x.storage()->buffer()); }
}  // namespace

T from_data(TensorData data, VulkanDevice device) {
  T out(data.shape(), data.dtype(), device);
  if (!data.bytes().empty()) context_of(out).write(buffer_of(out), 0, data.bytes().data(), data.bytes().size());
  return out;
}

TensorData into_data(T x) {
  x = contiguous(std::move(x));
  size_t bytes = x.numel() * dtype_size(x.dtype());
  std::vector<std::byte> buffer(bytes);
  if (bytes)
    context_of(x).read(buffer_of(x), static_cast<size_t>(x.offset()) * dtype_size(x.dtype()), buffer.data(), bytes);
  return TensorData::from_bytes(std::move(buffer), x.shape(), x.dtype());
}

T to_device(T x, VulkanDevice device) {
  if (x.device() == device) return x;
  return from_data(into_data(std::move(x)), device);
}

T empty(Shape shape, VulkanDevice device, DType dtype) { return T(shape, dtype, device); }

namespace {

RandomStream& random_stream() {
  static RandomStream s;
  return s;
}

struct RandomPush {
  uint32_t out_addr[2], key[2], draw[2], a_bits[2], b_bits[2];
  int32_t n;
};

}  // namespace

void seed(uint64_t s) { random_stream().seed(s); }

T random(Shape shape, Distribution dist, VulkanDevice device, DType dtype) {
  T out(shape, dtype, device);
  if (out.numel() == 0) return out;
  check_index_range("random", out);
  RandomStream& rs = random_stream();
  RandomPush p{};
  split_words(p.out_addr, out.storage()->address());
  split_words(p.key, rs.key.load());
  split_words(p.draw, rs.draws.fetch_add(1));
  split_words(p.a_bits, std::bit_cast<uint64_t>(dist.a));
  split_words(p.b_bits, std::bit_cast<uint64_t>(dist.b));
  p.n = static_cast<int32_t>(out.numel());
  int32_t spec[] = {static_cast<int32_t>(dtype), static_cast<int32_t>(dist.kind)};
  context_of(out).dispatch(variant("random", {dtype}), spec, &p, sizeof(p), groups_for(p.n));
  return out;
}

T full(Shape shape, Scalar value, VulkanDevice device, DType dtype) {
  T out(shape, dtype, device);
  MapLaunch launch;
  launch.form = FORM_FILL;
  launch.kind = is_float(dtype) ? KIND_FLOAT : KIND_INT;
  launch.scalar = value;
  run_map("full", out, launch);
  return out;
}

}  // namespace kernels

namespace host {

cpu::CpuTensor to_cpu(const VulkanTensor& x) {
  return cpu::kernels::from_data(kernels::into_data(x), cpu::CpuDevice{});
}

VulkanTensor to_vulkan(const cpu::CpuTensor& x, VulkanDevice device) {
  return kernels::from_data(cpu::kernels::into_data(x), device);
}

void count(VulkanDevice device) { detail::Context::get(device.index).count(&WorkStats::host_fallbacks); }

}  // namespace host
}  // namespace scorch::backends::vulkan
