#pragma once
// VulkanTensor: the one primitive of the Vulkan backend for every kind: a pooled device buffer viewed through
// shape, strides and offset, like CudaTensor. Views (reshape, permute, slice, expand) share storage; an op that
// receives the only reference to a dense buffer may write its result there. No Vulkan header needed.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch::backends::vulkan {

/// Vulkan physical device `index` (the order of vkEnumeratePhysicalDevices).
struct VulkanDevice {
  int index = 0;
  std::string to_string() const { return "Vulkan(" + std::to_string(index) + ")"; }
  friend bool operator==(const VulkanDevice& a, const VulkanDevice& b) { return a.index == b.index; }
};

/// A device buffer from the caching pool; returned to the pool on destruction. Shaders reach it by address.
class VulkanStorage {
 public:
  VulkanStorage(size_t bytes, int device);
  ~VulkanStorage();
  VulkanStorage(const VulkanStorage&) = delete;
  VulkanStorage& operator=(const VulkanStorage&) = delete;
  /// The buffer's device address (0 for an empty buffer).
  uint64_t address() const { return address_; }
  /// The VkBuffer handle, as an integer.
  uint64_t buffer() const { return buffer_; }
  size_t size() const { return bytes_; }
  int device() const { return device_; }

 private:
  uint64_t address_ = 0, buffer_ = 0, memory_ = 0;
  size_t bytes_ = 0, capacity_ = 0;
  int device_ = 0;
};

using Strides = std::array<int64_t, kMaxRank>;

/// A strided view of a VulkanStorage. Copying shares the buffer (reference counted).
class VulkanTensor {
 public:
  VulkanTensor() = default;
  /// A fresh contiguous tensor on device (uninitialized values).
  VulkanTensor(Shape shape, DType dtype, VulkanDevice device);
  /// A view of storage.
  VulkanTensor(std::shared_ptr<VulkanStorage> storage, Shape shape, Strides strides, int64_t offset, DType dtype)
      : storage_(std::move(storage)), shape_(shape), strides_(strides), offset_(offset), dtype_(dtype) {}

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  VulkanDevice device() const { return {storage_ ? storage_->device() : 0}; }
  const Strides& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  size_t numel() const { return shape_.num_elements(); }
  const std::shared_ptr<VulkanStorage>& storage() const { return storage_; }
  /// True when this handle is the only owner of its buffer.
  bool can_mut() const { return storage_.use_count() == 1; }
  /// Row-major contiguous with no gaps.
  bool is_contiguous() const;
  /// Contiguous and covering the whole buffer: safe to overwrite when can_mut().
  bool is_dense() const { return is_contiguous() && storage_ && numel() * dtype_size(dtype_) == storage_->size(); }

 private:
  std::shared_ptr<VulkanStorage> storage_;
  Shape shape_;
  Strides strides_{};
  int64_t offset_ = 0;
  DType dtype_ = DType::F32;
};

/// Strides of x viewed as broadcast to shape (0 along dims where x has size 1).
Strides broadcast_strides(const VulkanTensor& x, const Shape& shape);
/// A contiguous copy of x (or x itself if already contiguous).
VulkanTensor contiguous(VulkanTensor x);
/// x contiguous from the start of its buffer (offset 0), copied unless it already is: for shaders that take a bare
/// buffer address (pooling, windows, index ops).
VulkanTensor dense_from_start(VulkanTensor x);
/// A fresh contiguous tensor of shape and dtype on like's device (strided_layout's allocation hook).
VulkanTensor fresh(const VulkanTensor& like, Shape shape, DType dtype);
/// Copies src's values into the (possibly strided) view dst of the same shape and dtype.
void assign_view(const VulkanTensor& dst, const VulkanTensor& src);
/// True when x is uniquely owned, dense and of shape/dtype, so a result may overwrite it.
bool reusable(const VulkanTensor& x, const Shape& shape, DType dtype);

}  // namespace scorch::backends::vulkan
