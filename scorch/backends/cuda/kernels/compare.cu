// Cuda's logical_not and bitwise_not; the other elementwise kernels that map a scalar_ops functor are
// generated from the op table (build tree: generated/scorch/gen/cuda_elementwise.cu).
#include "scorch/backends/common/scalar_ops.h"
#include "scorch/backends/cuda/kernels/elementwise.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels {
namespace so = scalar_ops;

T logical_not(T x) { return map_unary<bool, bool>("logical_not", std::move(x), DType::Bool, so::LogicalNot{}); }

T bitwise_not(T x) {
  DType d = x.dtype();
  return visit_int("bitwise_not", d,
                   [&]<class E>() { return map_unary<E, E>("bitwise_not", std::move(x), d, so::BitNot{}); });
}

}  // namespace scorch::backends::cuda::kernels
