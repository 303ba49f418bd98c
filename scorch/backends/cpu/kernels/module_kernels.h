#pragma once
// The Cpu backend's module kernels: convolution, pooling, interpolation, unfold/fold and
// attention on [batch, channels, spatial...] float tensors. f64 runs in f64, other float
// dtypes in f32; results come back in the input's dtype.
#include <optional>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/backends/cpu/cpu_tensor.h"

namespace scorch::backends::cpu::kernels {

using T = CpuTensor;

// ---- convolution (conv.cpp)
T conv(T x, T w, std::optional<T> bias, const ConvSpec& spec);
ConvGradients<T> conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec);
T conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec);
ConvGradients<T> conv_transpose_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec);

// ---- pooling (pool.cpp); max-pool indices are flat within each channel's spatial block
T avg_pool(T x, const PoolSpec& spec);
T avg_pool_backward(T x, T grad, const PoolSpec& spec);
std::pair<T, T> max_pool_with_indices(T x, const PoolSpec& spec);
T max_pool_backward(T x, T grad, T indices);
T adaptive_avg_pool(T x, const SpatialDims& output_size);
T adaptive_avg_pool_backward(T x, T grad);
std::pair<T, T> adaptive_max_pool_with_indices(T x, const SpatialDims& output_size);

// ---- interpolation (interpolate.cpp)
T interpolate(T x, const InterpolateSpec& spec);
T interpolate_backward(T x, T grad, const InterpolateSpec& spec);

// ---- unfold/fold and attention (unfold.cpp, attention.cpp)
T unfold4d(T x, const PoolSpec& spec);
T fold4d(T x, const SpatialDims& output_size, const PoolSpec& spec);
T attention(T q, T k, T v, const std::optional<T>& mask, double scale);

}  // namespace scorch::backends::cpu::kernels
