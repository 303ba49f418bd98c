#pragma once
// CudaTensor: the one primitive of the Cuda backend for every kind: a pooled device buffer viewed
// through shape, strides and offset. Views (reshape, permute, slice, expand) share storage; an op
// that receives the only reference to a buffer may write its result there. No CUDA header needed.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch::backends::cuda {

/// CUDA card `index`.
struct CudaDevice {
  int index = 0;
  std::string to_string() const { return "Cuda(" + std::to_string(index) + ")"; }
  friend bool operator==(const CudaDevice& a, const CudaDevice& b) { return a.index == b.index; }
};

/// A device allocation from the caching pool (memory_pool.h); returned to the pool on destruction.
class CudaStorage {
 public:
  CudaStorage(size_t bytes, int device);
  ~CudaStorage();
  CudaStorage(const CudaStorage&) = delete;
  CudaStorage& operator=(const CudaStorage&) = delete;
  std::byte* data() const { return data_; }
  size_t size() const { return bytes_; }
  int device() const { return device_; }

 private:
  std::byte* data_ = nullptr;
  size_t bytes_ = 0, capacity_ = 0;
  int device_ = 0;
};

using Strides = std::array<int64_t, kMaxRank>;

/// A strided view of a CudaStorage. Copying shares the buffer (reference counted).
class CudaTensor {
 public:
  CudaTensor() = default;
  /// A fresh contiguous tensor on device (uninitialized values).
  CudaTensor(Shape shape, DType dtype, CudaDevice device);
  /// A view of storage.
  CudaTensor(std::shared_ptr<CudaStorage> storage, Shape shape, Strides strides, int64_t offset, DType dtype)
      : storage_(std::move(storage)), shape_(shape), strides_(strides), offset_(offset), dtype_(dtype) {}

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  CudaDevice device() const { return {storage_ ? storage_->device() : 0}; }
  const Strides& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  size_t numel() const { return shape_.num_elements(); }
  const std::shared_ptr<CudaStorage>& storage() const { return storage_; }
  /// True when this handle is the only owner of its buffer.
  bool can_mut() const { return storage_.use_count() == 1; }
  /// Row-major contiguous with no gaps.
  bool is_contiguous() const;
  /// Contiguous and covering the whole buffer: safe to overwrite when can_mut().
  bool is_dense() const { return is_contiguous() && storage_ && numel() * dtype_size(dtype_) == storage_->size(); }
  /// Device pointer to the first element as storage type E.
  template <class E> E* data() const { return reinterpret_cast<E*>(storage_->data()) + offset_; }
  std::byte* raw() const { return storage_->data() + offset_ * static_cast<int64_t>(dtype_size(dtype_)); }

 private:
  std::shared_ptr<CudaStorage> storage_;
  Shape shape_;
  Strides strides_{};
  int64_t offset_ = 0;
  DType dtype_ = DType::F32;
};

/// Strides of x viewed as broadcast to shape (0 along dims where x has size 1).
Strides broadcast_strides(const CudaTensor& x, const Shape& shape);
/// A contiguous copy of x (or x itself if already contiguous).
CudaTensor contiguous(CudaTensor x);
/// A fresh contiguous tensor of shape and dtype on like's device (strided_layout's allocation hook).
CudaTensor fresh(const CudaTensor& like, Shape shape, DType dtype);
/// Copies src's values into the (possibly strided) view dst of the same shape and dtype.
void assign_view(const CudaTensor& dst, const CudaTensor& src);
/// A contiguous tensor of x's shape with its values converted to dtype.
CudaTensor to_dtype(const CudaTensor& x, DType dtype);
/// True when x is uniquely owned, dense and of shape/dtype, so a result may overwrite it.
bool reusable(const CudaTensor& x, const Shape& shape, DType dtype);
/// x itself when reusable for a result of shape/dtype, else a fresh tensor on x's device.
CudaTensor reuse_or_alloc(CudaTensor& x, const Shape& shape, DType dtype);

}  // namespace scorch::backends::cuda
