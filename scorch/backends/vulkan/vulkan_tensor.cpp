// VulkanStorage over the pool and VulkanTensor's layout helpers (vulkan_tensor.h).
#include "scorch/backends/vulkan/vulkan_tensor.h"

#include "scorch/backends/common/strides.h"
#include "scorch/backends/vulkan/context.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/backends/vulkan/runtime.h"
#include "scorch/core/error.h"

namespace scorch::backends::vulkan {

VulkanStorage::VulkanStorage(size_t bytes, int device) : bytes_(bytes), device_(device) {
  detail::Context& ctx = detail::Context::get(device);
  if (bytes == 0) return;
  detail::Block b = ctx.allocate(bytes, capacity_);
  address_ = b.address;
  buffer_ = reinterpret_cast<uint64_t>(b.buffer);
  memory_ = reinterpret_cast<uint64_t>(b.memory);
}

VulkanStorage::~VulkanStorage() {
  if (bytes_ == 0) return;
  detail::Block b;
  b.buffer = reinterpret_cast<VkBuffer>(buffer_);
  b.memory = reinterpret_cast<VkDeviceMemory>(memory_);
  b.address = address_;
  b.capacity = capacity_;
  detail::Context::get(device_).release(b);
}

VulkanTensor::VulkanTensor(Shape shape, DType dtype, VulkanDevice device)
    : storage_(std::make_shared<VulkanStorage>(shape.num_elements() * dtype_size(dtype), device.index)),
      shape_(shape),
      strides_(contiguous_strides(shape)),
      dtype_(dtype) {}

bool VulkanTensor::is_contiguous() const { return strides::row_major(shape_, strides_); }

Strides broadcast_strides(const VulkanTensor& x, const Shape& shape) {
  return strides::broadcast(x.shape(), x.strides(), shape);
}

namespace {
int copy_kind(DType d) { return is_float(d) ? KIND_FLOAT : KIND_INT; }
}  // namespace

VulkanTensor contiguous(VulkanTensor x) {
  if (x.is_contiguous()) return x;
  return dense_from_start(std::move(x));
}

VulkanTensor dense_from_start(VulkanTensor x) {
  if (x.is_contiguous() && x.offset() == 0) return x;
  VulkanTensor out(x.shape(), x.dtype(), x.device());
  kernels::MapLaunch launch;
  launch.kind = copy_kind(x.dtype());
  launch.a = &x;
  kernels::run_map("contiguous", out, launch);
  return out;
}

VulkanTensor fresh(const VulkanTensor& like, Shape shape, DType dtype) {
  return VulkanTensor(shape, dtype, like.device());
}

void assign_view(const VulkanTensor& dst, const VulkanTensor& src) {
  kernels::MapLaunch launch;
  launch.kind = copy_kind(src.dtype());
  launch.a = &src;
  kernels::run_map("assign_view", dst, launch);
}

bool reusable(const VulkanTensor& x, const Shape& shape, DType dtype) {
  return x.can_mut() && x.is_dense() && x.dtype() == dtype && x.shape() == shape;
}

}  // namespace scorch::backends::vulkan
