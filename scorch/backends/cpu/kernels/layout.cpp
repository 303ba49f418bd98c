#include <cstring>

#include "scorch/backend/strided_layout.h"
#include "scorch/backends/cpu/kernels/elementwise.h"
#include "scorch/backends/cpu/kernels/kernels.h"

namespace scorch::backends::cpu {

/// A fresh contiguous tensor (strided_layout's allocation hook).
CpuTensor fresh(const CpuTensor&, Shape shape, DType dtype) { return CpuTensor(shape, dtype); }

/// Copies src's values into the (possibly strided) view dst of the same shape and dtype.
void assign_view(const CpuTensor& dst, const CpuTensor& src) {
  size_t size = dtype_size(src.dtype());
  std::byte* d = dst.raw();
  const std::byte* s = src.raw();
  strided_rows<2>(dst.shape(), {&dst.strides(), &src.strides()}, [&](auto off, auto st, size_t n) {
    if (st[0] == 1 && st[1] == 1) {
      std::memmove(d + off[0] * static_cast<int64_t>(size), s + off[1] * static_cast<int64_t>(size), n * size);
      return;
    }
    for (size_t i = 0; i < n; ++i)
      std::memcpy(d + (off[0] + static_cast<int64_t>(i) * st[0]) * static_cast<int64_t>(size),
                  s + (off[1] + static_cast<int64_t>(i) * st[1]) * static_cast<int64_t>(size), size);
  });
}

namespace kernels {
namespace sl = strided_layout;
T reshape(T x, Shape shape) { return sl::reshape(std::move(x), shape); }
T permute(T x, std::vector<size_t> axes) { return sl::permute(std::move(x), axes); }
T swap_dims(T x, size_t a, size_t b) { return sl::swap_dims(std::move(x), a, b); }
T flip(T x, std::vector<size_t> axes) { return sl::flip(std::move(x), axes); }
T expand(T x, Shape shape) { return sl::expand(std::move(x), shape); }
T slice(T x, SliceRanges ranges) { return sl::slice(std::move(x), ranges); }
T slice_assign(T x, SliceRanges ranges, T values) { return sl::slice_assign(std::move(x), ranges, values); }
T cat(std::vector<T> parts, size_t dim) { return sl::cat(parts, dim); }
T repeat_dim(T x, size_t dim, size_t times) { return sl::repeat_dim(std::move(x), dim, times); }
T unfold(T x, size_t dim, size_t size, size_t step) { return sl::unfold(std::move(x), dim, size, step); }
}  // namespace kernels

}  // namespace scorch::backends::cpu
