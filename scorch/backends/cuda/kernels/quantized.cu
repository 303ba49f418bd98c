// quantized_linear's device kernels (quantized_linear.cpp runs them around cuBLASLt's int8 product): the input
// quantized to int8 with each row's sum, the weight's row sums, the int32 product turned back into f32 with the
// offsets' cross terms removed, and the weight-only product for small batches, which dequantizes int8 or q4 weights
// as it loads them.
#include <algorithm>

#include "scorch/backends/cuda/kernels/device.cuh"
#include "scorch/backends/cuda/kernels/quantized.h"

namespace scorch::backends::cuda {
namespace {

constexpr int kRowThreads = 256;

// Sum of v over the block (every thread gets it).
__device__ int32_t block_sum(int32_t v) {
  __shared__ int32_t partial[kRowThreads / 32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  int32_t total = 0;
  for (int w = 0; w < kRowThreads / 32; ++w) total += partial[w];
  __syncthreads();
  return total;
}

// One block per row: q = clamp(round(x / scale) + offset) − shift (a uint8 value as int8), and the row's sum of q.
__global__ void quantize_rows_kernel(const float* x, int64_t k, float inverse, int32_t offset, int32_t qmin,
                                     int32_t qmax, int32_t shift, int8_t* q, int32_t* sums) {
  int64_t row = blockIdx.x;
  int32_t sum = 0;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
    float v = x[row * k + j];
    float r = fminf(fmaxf(nearbyintf(v != v ? 0.0f : v * inverse) + float(offset), float(qmin)), float(qmax));
    auto s = static_cast<int32_t>(r) - shift;
    q[row * k + j] = static_cast<int8_t>(s);
    sum += s;
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) sums[row] = sum;
}

// One block per weight row: its sum.
__global__ void weight_sums_kernel(const int8_t* w, int64_t k, int32_t* sums) {
  int64_t row = blockIdx.x;
  int32_t sum = 0;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x) sum += w[row * k + j];
  sum = block_sum(sum);
  if (threadIdx.x == 0) sums[row] = sum;
}

__global__ void epilogue_kernel(const int32_t* acc, int64_t m, int64_t n, int64_t k, QuantEpilogue e, float* y) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m * n) return;
  int64_t row = i / n, col = i % n;
  int64_t zw = e.w_offsets[e.per_column_offsets ? col : 0];
  float sw = e.w_scales[e.per_column_scales ? col : 0];
  int64_t v = int64_t(acc[i]) - int64_t(e.x_offset) * e.col_sums[col] - zw * e.row_sums[row] + k * e.x_offset * zw;
  float out = float(v) * (e.x_scale * sw) + (e.bias ? e.bias[col] : 0.0f);
  y[i] = e.relu ? fmaxf(out, 0.0f) : out;
}

// The weight-only product. A block holds kCols columns (one per lane) and kWarps warps; warp w sums the rows r ≡ w
// (mod kWarps) of the block's slice of k (blockIdx.y), dequantizing each weight as it loads it, for up to M rows of
// x at once; the warps' sums meet in shared memory and each slice's sum goes to partial [slices, rows, n], which
// finish_kernel adds up in slice order (the same sums on every run). w is [k, n] row-major (q4: n / 2 bytes a row);
// scales and offsets per group of block_rows rows (block_rows = k: one per column, or one in all).
constexpr int kCols = 32, kWarps = 8;

template <bool Q4> __device__ float weight_at(const void* w, int64_t r, int64_t col, int64_t n) {
  if constexpr (Q4) {
    uint8_t byte = static_cast<const uint8_t*>(w)[r * (n / 2) + col / 2];
    int nibble = (col % 2 == 0 ? byte : byte >> 4) & 15;
    return float((nibble ^ 8) - 8);
  } else {
    return float(static_cast<const int8_t*>(w)[r * n + col]);
  }
}

template <bool Q4, int M> __global__ void weight_only_kernel(const float* x, const void* w, WeightOnly p, int rows,
                                                             int64_t k, int64_t n, int64_t slice, float* partial) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int64_t col = static_cast<int64_t>(blockIdx.x) * kCols + lane;
  int64_t r0 = static_cast<int64_t>(blockIdx.y) * slice, r1 = r0 + slice < k ? r0 + slice : k;
  float acc[M] = {};
  if (col < n)
    for (int64_t r = r0 + warp; r < r1; r += kWarps) {
      int64_t group = r / p.block_rows, param = p.per_column ? group * n + col : group;
      float wv = (weight_at<Q4>(w, r, col, n) - float(p.offsets[p.offsets_per_group ? param : 0])) * p.scales[param];
#pragma unroll
      for (int i = 0; i < M; ++i)
        if (i < rows) acc[i] += x[i * k + r] * wv;
    }
  __shared__ float sums[kWarps][M][kCols];
#pragma unroll
  for (int i = 0; i < M; ++i) sums[warp][i][lane] = acc[i];
  __syncthreads();
  if (warp != 0 || col >= n) return;
  for (int i = 0; i < rows; ++i) {
    float total = 0.0f;
    for (int v = 0; v < kWarps; ++v) total += sums[v][i][lane];
    partial[(static_cast<int64_t>(blockIdx.y) * rows + i) * n + col] = total;
  }
}

__global__ void finish_kernel(const float* partial, int slices, int rows, int64_t n, const float* bias, bool relu,
                              float* y) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * n) return;
  float total = bias ? bias[i % n] : 0.0f;
  for (int s = 0; s < slices; ++s) total += partial[s * rows * n + i];
  y[i] = relu ? fmaxf(total, 0.0f) : total;
}

template <bool Q4> void launch_weight_only(const float* x, const void* w, const WeightOnly& p, int rows, int64_t k,
                                           int64_t n, float* partial, int64_t slice, cudaStream_t s) {
  dim3 grid(static_cast<unsigned>((n + kCols - 1) / kCols), static_cast<unsigned>((k + slice - 1) / slice));
  if (rows == 1) weight_only_kernel<Q4, 1><<<grid, kCols * kWarps, 0, s>>>(x, w, p, rows, k, n, slice, partial);
  else if (rows <= 4) weight_only_kernel<Q4, 4><<<grid, kCols * kWarps, 0, s>>>(x, w, p, rows, k, n, slice, partial);
  else weight_only_kernel<Q4, 8><<<grid, kCols * kWarps, 0, s>>>(x, w, p, rows, k, n, slice, partial);
}

}  // namespace

int32_t quantize_rows_s8(const CudaTensor& x, QuantParams params, QuantValue value, CudaTensor& q,
                         CudaTensor& row_sums) {
  int64_t m = static_cast<int64_t>(x.shape()[0]), k = static_cast<int64_t>(x.shape()[1]);
  QuantRange r = quant_range(value);
  int32_t shift = value == QuantValue::UInt8 ? 128 : 0;
  if (m == 0) return shift;
  quantize_rows_kernel<<<static_cast<unsigned>(m), kRowThreads, 0, stream(x.device().index)>>>(
      x.data<float>(), k, 1.0f / params.scale, static_cast<int32_t>(params.offset), static_cast<int32_t>(r.qmin),
      static_cast<int32_t>(r.qmax), shift, q.data<int8_t>(), row_sums.data<int32_t>());
  check_launch("quantized_linear");
  return shift;
}

void weight_row_sums(const CudaTensor& w, CudaTensor& sums) {
  int64_t n = static_cast<int64_t>(w.shape()[0]), k = static_cast<int64_t>(w.shape()[1]);
  if (n == 0) return;
  weight_sums_kernel<<<static_cast<unsigned>(n), kRowThreads, 0, stream(w.device().index)>>>(w.data<int8_t>(), k,
                                                                                             sums.data<int32_t>());
  check_launch("quantized_linear");
}

void int8_epilogue(const CudaTensor& acc, int64_t k, const QuantEpilogue& e, CudaTensor& y) {
  int64_t m = static_cast<int64_t>(y.shape()[0]), n = static_cast<int64_t>(y.shape()[1]);
  if (m * n == 0) return;
  epilogue_kernel<<<blocks_for(m * n), kThreads, 0, stream(y.device().index)>>>(acc.data<int32_t>(), m, n, k, e,
                                                                                y.data<float>());
  check_launch("quantized_linear");
}

void weight_only_product(const CudaTensor& x, const CudaTensor& w, bool q4, const WeightOnly& p, CudaTensor& y) {
  int64_t m = static_cast<int64_t>(x.shape()[0]), k = static_cast<int64_t>(x.shape()[1]);
  int64_t n = static_cast<int64_t>(y.shape()[1]);
  if (m * n == 0) return;
  cudaStream_t s = stream(x.device().index);
  // Slices of k so the grid has about 264 blocks (two per SM of an H100), at least 64 rows each.
  int64_t col_blocks = (n + kCols - 1) / kCols, want = (264 + col_blocks - 1) / col_blocks;
  int64_t slices = std::max<int64_t>(1, std::min<int64_t>(want, k / 64)), slice = (k + slices - 1) / slices;
  slices = (k + slice - 1) / slice;
  for (int64_t r0 = 0; r0 < m; r0 += 8) {  // eight rows a launch: the weights are read once per eight rows
    int rows = static_cast<int>(m - r0 < 8 ? m - r0 : 8);
    CudaTensor partial(Shape{static_cast<size_t>(slices * rows * n)}, DType::F32, x.device());
    const float* xr = x.data<float>() + r0 * k;
    if (q4) launch_weight_only<true>(xr, w.raw(), p, rows, k, n, partial.data<float>(), slice, s);
    else launch_weight_only<false>(xr, w.raw(), p, rows, k, n, partial.data<float>(), slice, s);
    finish_kernel<<<blocks_for(rows * n), kThreads, 0, s>>>(partial.data<float>(), static_cast<int>(slices), rows, n,
                                                            p.bias, p.relu, y.data<float>() + r0 * n);
  }
  check_launch("quantized_linear");
}

}  // namespace scorch::backends::cuda
