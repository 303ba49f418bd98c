#pragma once
// The Cpu backend's kernels. One function serves every kind whose dtype it supports;
// cpu_backend.h binds the backend's kind-prefixed names onto these (backend/bind_ops.h).
#include <cstdint>
#include <utility>
#include <vector>

#include "scorch/backend/options.h"
#include "scorch/backends/cpu/cpu_tensor.h"
#include "scorch/core/distribution.h"
#include "scorch/core/scalar.h"
#include "scorch/core/tensor_data.h"

namespace scorch::backends::cpu::kernels {

using T = CpuTensor;
using IndexPair = std::pair<CpuTensor, CpuTensor>;

using Device = CpuDevice;
// Kernel files: creation.cpp, binary.cpp, compare.cpp, unary.cpp, reduce.cpp, softmax.cpp, layout.cpp, index.cpp, sort.cpp.
#include "scorch/backend/kernel_set.inc"

}  // namespace scorch::backends::cpu::kernels
