// quantized_linear's device kernels (quantized_linear.cpp runs them around cuBLASLt's int8 product): the input
// quantized to int8 with each row's sum, the weight's row sums, the int32 product turned back into f32 with the
// offsets' cross terms removed, and the weight-only product for small batches, which dequantizes int8 or q4 weights
// as it loads them.
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

// The weight-only product: one thread per output column (two for a q4 byte), each row of x in registers'
// accumulators. w is [k, n] row-major (n contiguous; q4: n / 2 bytes a row); scales and offsets per group of
// block rows (block_rows = k for one per column).
template <bool Q4, int M> __global__ void weight_only_kernel(const float* x, const void* w, WeightOnly p, int rows,
                                                             int64_t k, int64_t n, float* y) {
  int64_t col = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= n) return;
  float acc[M] = {};
  for (int64_t g0 = 0; g0 < k; g0 += p.block_rows) {
    int64_t group = g0 / p.block_rows, param = p.per_column ? group * n + col : group;
    float scale = p.scales[param];
    float shift = float(p.offsets[p.offsets_per_group ? param : 0]);
    int64_t g1 = g0 + p.block_rows < k ? g0 + p.block_rows : k;
    for (int64_t r = g0; r < g1; ++r) {
      float v;
      if constexpr (Q4) {
        uint8_t byte = static_cast<const uint8_t*>(w)[r * (n / 2) + col / 2];
        int nibble = (col % 2 == 0 ? byte : byte >> 4) & 15;
        v = float((nibble ^ 8) - 8);
      } else {
        v = float(static_cast<const int8_t*>(w)[r * n + col]);
      }
      float wv = (v - shift) * scale;
#pragma unroll
      for (int i = 0; i < M; ++i)
        if (i < rows) acc[i] += x[i * k + r] * wv;
    }
  }
#pragma unroll
  for (int i = 0; i < M; ++i) {
    if (i >= rows) break;
    float out = acc[i] + (p.bias ? p.bias[col] : 0.0f);
    y[i * n + col] = p.relu ? fmaxf(out, 0.0f) : out;
  }
}

template <bool Q4> void launch_weight_only(const float* x, const void* w, const WeightOnly& p, int rows, int64_t k,
                                           int64_t n, float* y, cudaStream_t s) {
  unsigned blocks = static_cast<unsigned>((n + 127) / 128);
  if (rows == 1) weight_only_kernel<Q4, 1><<<blocks, 128, 0, s>>>(x, w, p, rows, k, n, y);
  else if (rows <= 4) weight_only_kernel<Q4, 4><<<blocks, 128, 0, s>>>(x, w, p, rows, k, n, y);
  else weight_only_kernel<Q4, 8><<<blocks, 128, 0, s>>>(x, w, p, rows, k, n, y);
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
  for (int64_t r0 = 0; r0 < m; r0 += 8) {  // eight rows a launch: the weights are read once per eight rows
    int rows = static_cast<int>(m - r0 < 8 ? m - r0 : 8);
    const float* xr = x.data<float>() + r0 * k;
    float* yr = y.data<float>() + r0 * n;
    if (q4) launch_weight_only<true>(xr, w.raw(), p, rows, k, n, yr, s);
    else launch_weight_only<false>(xr, w.raw(), p, rows, k, n, yr, s);
  }
  check_launch("quantized_linear");
}

}  // namespace scorch::backends::cuda
