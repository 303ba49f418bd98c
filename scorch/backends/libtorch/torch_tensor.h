#pragma once
// TorchTensor: the one primitive of the LibTorch backend for every kind: an owning handle to an
// at::Tensor that needs no LibTorch header. Copies share the tensor (LibTorch's own reference
// count), so an op that receives the only handle may write its result in place.
#include <cstdint>
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch::backends::libtorch {

/// A LibTorch device: the host, or CUDA card `index` when the linked LibTorch has CUDA.
struct TorchDevice {
  enum class Kind : uint8_t { Cpu, Cuda };
  Kind kind = Kind::Cpu;
  int index = 0;
  /// The host.
  static TorchDevice cpu() { return {}; }
  /// CUDA card i (ops on it throw DeviceError when LibTorch has no CUDA).
  static TorchDevice cuda(int i = 0) { return {Kind::Cuda, i}; }
  /// "Cpu" or "Cuda(i)".
  std::string to_string() const { return kind == Kind::Cpu ? "Cpu" : "Cuda(" + std::to_string(index) + ")"; }
  friend bool operator==(const TorchDevice& a, const TorchDevice& b) {
    return a.kind == b.kind && (a.kind == Kind::Cpu || a.index == b.index);
  }
};

/// An owning, reference-counted handle to an at::Tensor; shape, dtype and device are cached.
class TorchTensor {
 public:
  TorchTensor() = default;
  TorchTensor(const TorchTensor& other);
  TorchTensor(TorchTensor&& other) noexcept;
  TorchTensor& operator=(TorchTensor other) noexcept;
  ~TorchTensor();

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  TorchDevice device() const { return device_; }
  size_t numel() const { return shape_.num_elements(); }
  /// True when a tensor is held.
  bool defined() const { return impl_ != nullptr; }

  /// The held c10::TensorImpl* (one reference owned by this handle), for backends/libtorch only.
  void* impl() const { return impl_; }
  /// Gives up the held reference to the caller; the handle becomes empty.
  void* release() noexcept;
  /// Takes over one reference to impl.
  static TorchTensor adopt(void* impl, Shape shape, DType dtype, TorchDevice device);

 private:
  void* impl_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::F32;
  TorchDevice device_;
};

}  // namespace scorch::backends::libtorch
