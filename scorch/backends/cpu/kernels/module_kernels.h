#pragma once
// The Cpu backend's module kernels: convolution, pooling, interpolation, unfold/fold and
// attention on [batch, channels, spatial...] float tensors. f64 runs in f64, other float
// dtypes in f32; results come back in the input's dtype.
#include <optional>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/backends/cpu/cpu_tensor.h"
#include "scorch/gen/cpu_kernel_ops.h"

namespace scorch::backends::cpu::kernels {

using T = CpuTensor;

// Declared in gen/cpu_kernel_ops.h; kernel files: conv.cpp (depthwise.cpp), pool.cpp, interpolate.cpp, unfold.cpp,
// attention.cpp.

}  // namespace scorch::backends::cpu::kernels
