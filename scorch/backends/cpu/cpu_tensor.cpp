#include "scorch/backends/cpu/cpu_tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "scorch/backends/common/strides.h"
#include "scorch/backends/cpu/host_cache.h"
#include "scorch/backends/cpu/kernels/strided.h"
#include "scorch/core/tensor_data.h"

namespace scorch::backends::cpu {

CpuStorage::CpuStorage(size_t bytes) : bytes_(bytes) {
  data_ = static_cast<std::byte*>(host_cache::allocate(bytes, capacity_));
}

CpuStorage::~CpuStorage() { host_cache::release(data_, capacity_); }

CpuTensor::CpuTensor(Shape shape, DType dtype)
    : storage_(std::make_shared<CpuStorage>(shape.num_elements() * dtype_size(dtype))),
      shape_(shape),
      strides_(contiguous_strides(shape)),
      dtype_(dtype) {}

bool CpuTensor::is_contiguous() const { return strides::row_major(shape_, strides_); }

Strides broadcast_strides(const CpuTensor& x, const Shape& shape) {
  return strides::broadcast(x.shape(), x.strides(), shape);
}

namespace {
// Copies x's values into out (contiguous, same shape), converting dtype when they differ.
void copy_into(const CpuTensor& x, CpuTensor& out) {
  Strides out_strides = out.strides();
  size_t in_size = dtype_size(x.dtype()), out_size = dtype_size(out.dtype());
  const std::byte* src = x.raw();
  std::byte* dst = out.raw();
  bool same = x.dtype() == out.dtype();
  strided_rows<2>(x.shape(), {&out_strides, &x.strides()}, [&](auto off, auto st, size_t n) {
    if (same && st[1] == 1 && st[0] == 1) {
      std::memcpy(dst + off[0] * out_size, src + off[1] * in_size, n * in_size);
      return;
    }
    for (size_t i = 0; i < n; ++i)
      convert_elements(src + (off[1] + static_cast<int64_t>(i) * st[1]) * in_size, x.dtype(),
                       dst + (off[0] + static_cast<int64_t>(i) * st[0]) * out_size, out.dtype(), 1);
  });
}
}  // namespace

CpuTensor contiguous(CpuTensor x) {
  if (x.is_contiguous()) return x;
  CpuTensor out(x.shape(), x.dtype());
  copy_into(x, out);
  return out;
}

CpuTensor to_dtype(const CpuTensor& x, DType dtype) {
  if (x.dtype() == dtype) return contiguous(x);
  CpuTensor out(x.shape(), dtype);
  if (x.is_contiguous()) {
    size_t n = x.numel();
    size_t in_size = dtype_size(x.dtype()), out_size = dtype_size(dtype);
    parallel_for(n, kElementwiseGrain, [&](size_t b, size_t e) {
      convert_elements(x.raw() + b * in_size, x.dtype(), out.raw() + b * out_size, dtype, e - b);
    });
  } else {
    copy_into(x, out);
  }
  return out;
}

bool reusable(const CpuTensor& x, const Shape& shape, DType dtype) {
  return x.can_mut() && x.is_dense() && x.dtype() == dtype && x.shape() == shape;
}

CpuTensor reuse_or_alloc(CpuTensor& x, const Shape& shape, DType dtype) {
  if (reusable(x, shape, dtype)) return x;
  return CpuTensor(shape, dtype);
}

}  // namespace scorch::backends::cpu
