#pragma once
// CpuTensor: the one primitive of the Cpu backend for every kind: a shared buffer viewed
// through shape, strides and offset. Views (reshape, permute, slice, expand) share storage;
// an op that receives the only reference to a buffer may write its result there.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch::backends::cpu {

/// The host. All CpuDevices are equal.
struct CpuDevice {
  std::string to_string() const { return "Cpu"; }
  friend bool operator==(const CpuDevice&, const CpuDevice&) { return true; }
};

/// A 64-byte aligned host allocation (large ones recycled through host_cache).
class CpuStorage {
 public:
  explicit CpuStorage(size_t bytes);
  ~CpuStorage();
  CpuStorage(const CpuStorage&) = delete;
  CpuStorage& operator=(const CpuStorage&) = delete;
  std::byte* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  std::byte* data_ = nullptr;
  size_t bytes_ = 0, capacity_ = 0;
};

using Strides = std::array<int64_t, kMaxRank>;

/// A strided view of a CpuStorage. Copying shares the buffer (reference counted).
class CpuTensor {
 public:
  CpuTensor() = default;
  /// A fresh contiguous tensor (uninitialized values).
  CpuTensor(Shape shape, DType dtype);
  /// A view of storage.
  CpuTensor(std::shared_ptr<CpuStorage> storage, Shape shape, Strides strides, int64_t offset, DType dtype)
      : storage_(std::move(storage)), shape_(shape), strides_(strides), offset_(offset), dtype_(dtype) {}

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  CpuDevice device() const { return {}; }
  const Strides& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  size_t numel() const { return shape_.num_elements(); }
  const std::shared_ptr<CpuStorage>& storage() const { return storage_; }
  /// True when this handle is the only owner of its buffer.
  bool can_mut() const { return storage_.use_count() == 1; }
  /// Row-major contiguous with no gaps.
  bool is_contiguous() const;
  /// Contiguous and covering the whole buffer: safe to overwrite when can_mut().
  bool is_dense() const { return is_contiguous() && storage_ && numel() * dtype_size(dtype_) == storage_->size(); }
  /// Pointer to the first element as storage type T.
  template <class T> T* data() const { return reinterpret_cast<T*>(storage_->data()) + offset_; }
  std::byte* raw() const { return storage_->data() + offset_ * static_cast<int64_t>(dtype_size(dtype_)); }

 private:
  std::shared_ptr<CpuStorage> storage_;
  Shape shape_;
  Strides strides_{};
  int64_t offset_ = 0;
  DType dtype_ = DType::F32;
};

/// A contiguous copy of x (or x itself if already contiguous).
CpuTensor contiguous(CpuTensor x);
/// Strides of x viewed as broadcast to shape (0 along dims where x has size 1).
Strides broadcast_strides(const CpuTensor& x, const Shape& shape);
/// A fresh contiguous tensor of shape and dtype (strided_layout's allocation hook).
CpuTensor fresh(const CpuTensor& like, Shape shape, DType dtype);
/// Copies src's values into the (possibly strided) view dst of the same shape and dtype.
void assign_view(const CpuTensor& dst, const CpuTensor& src);
/// A contiguous tensor of x's shape with its values converted to dtype.
CpuTensor to_dtype(const CpuTensor& x, DType dtype);
/// True when x is uniquely owned, dense and of shape/dtype, so a result may overwrite it.
bool reusable(const CpuTensor& x, const Shape& shape, DType dtype);
/// The tensor x's result may be written to: x itself when it is uniquely owned, dense and of
/// shape/dtype, else a fresh tensor.
CpuTensor reuse_or_alloc(CpuTensor& x, const Shape& shape, DType dtype);

}  // namespace scorch::backends::cpu
