#pragma once
// The LibTorch backend's ops: each calls LibTorch's ATen kernels and keeps Scorch's contract
// (backend/README.md): dims as Scorch resolves them, reductions to shape [1], integer division
// that floors and reports division by zero, powers and shifts defined on every input, and
// out-of-range indices as ShapeError. LibTorch's own errors come back as scorch::Error.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "scorch/backend/module_options.h"
#include "scorch/backend/options.h"
#include "scorch/backends/libtorch/torch_tensor.h"
#include "scorch/gen/libtorch_kernel_ops.h"
#include "scorch/core/distribution.h"
#include "scorch/core/scalar.h"
#include "scorch/core/tensor_data.h"

namespace scorch::backends::libtorch::ops {

using T = TorchTensor;
using IndexPair = std::pair<TorchTensor, TorchTensor>;

using Device = TorchDevice;
// Files: torch_data.cpp (creation, data, casts, random), torch_math.cpp (elementwise, activations,
// matmul), torch_shape.cpp (reductions, layout, indexing, sorting), torch_module.cpp (module ops).
// The op kernels are declared in gen/libtorch_kernel_ops.h (from op_table.txt).

/// Seeds LibTorch's default generators.
void seed(uint64_t seed);

/// Waits for the device's queued work (a no-op on the host).
void sync(TorchDevice device);
/// True when the linked LibTorch was built with CUDA and sees a card.
bool cuda_available();
/// Threads LibTorch's intra-op pool uses; set_num_threads changes it.
size_t num_threads();
void set_num_threads(size_t n);

}  // namespace scorch::backends::libtorch::ops
