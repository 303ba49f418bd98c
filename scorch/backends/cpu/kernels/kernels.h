#pragma once
// The Cpu backend's kernels. One function serves every kind whose dtype it supports;
// their declarations and the Cpu struct's bindings are generated from op_table.txt (gen/cpu_kernel_ops.h).
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "scorch/backend/options.h"
#include "scorch/backends/cpu/cpu_tensor.h"
#include "scorch/gen/cpu_kernel_ops.h"
#include "scorch/core/distribution.h"
#include "scorch/core/scalar.h"
#include "scorch/core/tensor_data.h"

namespace scorch::backends::cpu::kernels {

using T = CpuTensor;
using IndexPair = std::pair<CpuTensor, CpuTensor>;

using Device = CpuDevice;
// Kernel files: creation.cpp, binary.cpp, compare.cpp, unary.cpp, reduce.cpp, softmax.cpp, layout.cpp, index.cpp,
// sort.cpp; module ops: conv.cpp, pool.cpp, interpolate.cpp, unfold.cpp, attention.cpp, norm.cpp, cross_entropy.cpp.

/// Restarts the random stream: the same seed gives the same random tensors.
void seed(uint64_t seed);
/// Indices as int64 resolved against dim_size (negative counts from the end); throws ShapeError naming op and the
/// first index out of range (index.cpp).
std::vector<int64_t> read_indices(const char* op, const T& indices, size_t dim_size);

/// Whether quantized_linear below runs these operands: x float [m, k], weight int8 [k, n], int8 values with one
/// scale per tensor or per column (axis 1), an int8 or uint8 input (quantized.cpp).
bool quantized_linear_fits(const T& x, const T& weight, const T& scales, const QuantScheme& scheme,
                           const InputQuant& input);
/// The op table's quantized_linear in integers (AVX-512 VNNI, AVX2 or portable lanes): f32 [m, n].
T quantized_linear(const T& x, const T& weight, const T& scales, const T& offsets, const std::optional<T>& bias,
                   const InputQuant& input, bool relu);

}  // namespace scorch::backends::cpu::kernels
