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
#include "scorch/core/distribution.h"
#include "scorch/core/scalar.h"
#include "scorch/core/tensor_data.h"

namespace scorch::backends::libtorch::ops {

using T = TorchTensor;
using IndexPair = std::pair<TorchTensor, TorchTensor>;

// ---- creation and data (torch_data.cpp)
T from_data(TensorData data, TorchDevice device);
TensorData into_data(T x);
T to_device(T x, TorchDevice device);
T empty(Shape shape, TorchDevice device, DType dtype);
T full(Shape shape, Scalar value, TorchDevice device, DType dtype);
T random(Shape shape, Distribution dist, TorchDevice device, DType dtype);
T cast(T x, DType dtype);
void seed(uint64_t seed);
/// Waits for the device's queued work (a no-op on the host).
void sync(TorchDevice device);
/// True when the linked LibTorch was built with CUDA and sees a card.
bool cuda_available();
/// Threads LibTorch's intra-op pool uses; set_num_threads changes it.
size_t num_threads();
void set_num_threads(size_t n);

// ---- arithmetic (torch_math.cpp); int div floors, int remainder takes the divisor's sign
T add(T a, T b);
T sub(T a, T b);
T mul(T a, T b);
T div(T a, T b);
T remainder(T a, T b);
T powf(T a, T b);
T powi(T a, T b);
T atan2(T a, T b);
T add_scalar(T a, Scalar s);
T sub_scalar(T a, Scalar s);
T mul_scalar(T a, Scalar s);
T div_scalar(T a, Scalar s);
T remainder_scalar(T a, Scalar s);
T powf_scalar(T a, Scalar s);
T powi_scalar(T a, Scalar s);
T matmul(T a, T b);

// ---- comparison and logic (torch_math.cpp)
T equal(T a, T b);
T not_equal(T a, T b);
T greater(T a, T b);
T greater_equal(T a, T b);
T lower(T a, T b);
T lower_equal(T a, T b);
T equal_elem(T a, Scalar s);
T not_equal_elem(T a, Scalar s);
T greater_elem(T a, Scalar s);
T greater_equal_elem(T a, Scalar s);
T lower_elem(T a, Scalar s);
T lower_equal_elem(T a, Scalar s);
T logical_not(T x);
T logical_and(T a, T b);
T logical_or(T a, T b);
T logical_xor(T a, T b);
T bitwise_and(T a, T b);
T bitwise_or(T a, T b);
T bitwise_xor(T a, T b);
T bitwise_and_scalar(T a, Scalar s);
T bitwise_or_scalar(T a, Scalar s);
T bitwise_xor_scalar(T a, Scalar s);
T bitwise_not(T x);
T bitwise_left_shift(T a, T b);
T bitwise_right_shift(T a, T b);
T bitwise_left_shift_scalar(T a, Scalar s);
T bitwise_right_shift_scalar(T a, Scalar s);

// ---- unary math and activations (torch_math.cpp)
T exp(T x);
T log(T x);
T log1p(T x);
T sqrt(T x);
T abs(T x);
T cos(T x);
T sin(T x);
T tan(T x);
T cosh(T x);
T sinh(T x);
T tanh(T x);
T acos(T x);
T acosh(T x);
T asin(T x);
T asinh(T x);
T atan(T x);
T atanh(T x);
T round(T x);
T floor(T x);
T ceil(T x);
T trunc(T x);
T erf(T x);
T recip(T x);
T neg(T x);
T sign(T x);
T is_nan(T x);
T is_inf(T x);
T clamp(T x, Scalar lo, Scalar hi);
T clamp_min(T x, Scalar lo);
T clamp_max(T x, Scalar hi);
T relu(T x);
T leaky_relu(T x, Scalar slope);
T gelu(T x);
T sigmoid(T x);
T log_sigmoid(T x);
T hard_sigmoid(T x, Scalar alpha, Scalar beta);

// ---- reductions (torch_shape.cpp); *_dim keep the reduced dim with size 1
T sum(T x);
T sum_dim(T x, size_t dim);
T mean(T x);
T mean_dim(T x, size_t dim);
T prod(T x);
T prod_dim(T x, size_t dim);
T max(T x);
T min(T x);
T max_dim(T x, size_t dim);
T min_dim(T x, size_t dim);
T argmax(T x, size_t dim);
T argmin(T x, size_t dim);
IndexPair max_dim_with_indices(T x, size_t dim);
IndexPair min_dim_with_indices(T x, size_t dim);
T cumsum(T x, size_t dim);
T cumprod(T x, size_t dim);
T cummin(T x, size_t dim);
T cummax(T x, size_t dim);
T softmax(T x, size_t dim);
T log_softmax(T x, size_t dim);

// ---- layout (torch_shape.cpp); reshape, permute, expand, slice and unfold return views
T reshape(T x, Shape shape);
T permute(T x, std::vector<size_t> axes);
T swap_dims(T x, size_t a, size_t b);
T flip(T x, std::vector<size_t> axes);
T expand(T x, Shape shape);
T slice(T x, SliceRanges ranges);
T slice_assign(T x, SliceRanges ranges, T values);
T cat(std::vector<T> parts, size_t dim);
T repeat_dim(T x, size_t dim, size_t times);
T unfold(T x, size_t dim, size_t size, size_t step);

// ---- indexing (torch_shape.cpp); indices are int tensors, validated by the caller
T gather(size_t dim, T x, T indices);
T scatter_add(size_t dim, T x, T indices, T values);
T select(T x, size_t dim, T indices);
T select_add(T x, size_t dim, T indices, T values);
T mask_where(T x, T mask, T values);
T mask_fill(T x, T mask, Scalar value);
T argwhere(T mask);

// ---- sorting (torch_shape.cpp); stable, NaN sorts as the largest value
T sort(T x, size_t dim, bool descending);
IndexPair sort_with_indices(T x, size_t dim, bool descending);
T argsort(T x, size_t dim, bool descending);

// ---- module ops (torch_module.cpp); max-pool indices are flat within each channel's spatial block
T conv(T x, T w, std::optional<T> bias, const ConvSpec& spec);
ConvGradients<T> conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec);
T conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec);
ConvGradients<T> conv_transpose_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec);
T avg_pool(T x, const PoolSpec& spec);
T avg_pool_backward(T x, T grad, const PoolSpec& spec);
std::pair<T, T> max_pool_with_indices(T x, const PoolSpec& spec);
T max_pool_backward(T x, T grad, T indices);
T adaptive_avg_pool(T x, const SpatialDims& output_size);
T adaptive_avg_pool_backward(T x, T grad);
std::pair<T, T> adaptive_max_pool_with_indices(T x, const SpatialDims& output_size);
T interpolate(T x, const InterpolateSpec& spec);
T interpolate_backward(T x, T grad, const InterpolateSpec& spec);
T unfold4d(T x, const PoolSpec& spec);
T fold4d(T x, const SpatialDims& output_size, const PoolSpec& spec);
T attention(T q, T k, T v, const std::optional<T>& mask, double scale);

}  // namespace scorch::backends::libtorch::ops
