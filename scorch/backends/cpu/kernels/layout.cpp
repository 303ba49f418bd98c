// Cpu's hooks for the strided layout code (backends/common/strided_layout.h); the layout kernels that
// call it are generated from the op table (build tree: generated/scorch/gen/cpu_layout.cpp).
#include <cstring>

#include "scorch/backends/common/strided_layout.h"
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

}  // namespace scorch::backends::cpu
