#include "scorch/backend/strided_layout.h"
#include "scorch/backends/cuda/cuda_tensor.h"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda {

/// A fresh contiguous tensor (strided_layout's allocation hook).
CudaTensor fresh(const CudaTensor& like, Shape shape, DType dtype) { return CudaTensor(shape, dtype, like.device()); }

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

}  // namespace scorch::backends::cuda
