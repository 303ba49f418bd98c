// Cuda's allocation hook for the strided layout code (backends/common/strided_layout.h); the layout
// kernels that call it are generated from the op table (build tree: generated/scorch/gen/cuda_layout.cpp).
#include "scorch/backends/common/strided_layout.h"
#include "scorch/backends/cuda/cuda_tensor.h"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda {

/// A fresh contiguous tensor (strided_layout's allocation hook).
CudaTensor fresh(const CudaTensor& like, Shape shape, DType dtype) { return CudaTensor(shape, dtype, like.device()); }

}  // namespace scorch::backends::cuda
