#include "scorch/backend/strided_layout.h"
#include "scorch/backends/cuda/cuda_tensor.h"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda {

/// A fresh contiguous tensor (strided_layout's allocation hook).
CudaTensor fresh(const CudaTensor& like, Shape shape, DType dtype) { return CudaTensor(shape, dtype, like.device()); }

namespace kernels {
#include "scorch/backend/strided_layout_ops.inc"
}  // namespace kernels

}  // namespace scorch::backends::cuda
