// The 3xTF32 split of an f32 operand (tf32_split.h): each element is read once and its three pieces written, both
// coalesced (a source whose k dim is strided goes through a shared-memory tile).
#include "scorch/backends/cuda/kernels/device.cuh"
#include "scorch/backends/cuda/kernels/tf32_split.h"

namespace scorch::backends::cuda::kernels {
namespace {

/// x rounded to the nearest TF32 value (10 mantissa bits, ties away from zero, as cvt.rna.tf32); a finite x whose
/// rounding would overflow is truncated instead; inf and NaN stay.
__device__ float round_tf32(float x) {
  uint32_t bits = __float_as_uint(x);
  if ((bits & 0x7f800000u) == 0x7f800000u) return x;
  uint32_t rounded = (bits + 0x1000u) & 0xffffe000u;
  if ((rounded & 0x7f800000u) == 0x7f800000u) rounded = bits & 0xffffe000u;
  return __uint_as_float(rounded);
}

/// The piece p of x: its small or its big part.
__device__ float piece(float x, unsigned small_pieces, int p) {
  float big = round_tf32(x);
  if (!(small_pieces >> p & 1u)) return big;
  return isfinite(x) ? round_tf32(x - big) : 0.0f;  // a non-finite x is all big
}

/// k along the source's rows: read and write along them.
__global__ void split_kernel(const float* src, float* out, Tf32x3Layout s, uint32_t total) {
  const int64_t k = s.rows, out_ld = 3 * k;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    uint32_t r = i % s.rows, t = i / s.rows, c = t % s.cols, b = t / s.cols;
    float x = src[b * s.batch_stride + c * s.ld + r];
    float* o = out + b * s.out_batch_stride + c * out_ld + r;
    for (int p = 0; p < 3; ++p) o[p * k] = piece(x, s.small_pieces, p);
  }
}

constexpr int kTile = 32, kTileRows = 8;

/// k along the source's columns: a 32 × 32 tile read along the source's rows and written along its columns.
__global__ void split_transposed_kernel(const float* src, float* out, Tf32x3Layout s) {
  __shared__ float tile[kTile][kTile + 1];
  const int64_t k = s.cols, out_ld = 3 * k;
  uint32_t r0 = blockIdx.x * kTile, c0 = blockIdx.y * kTile, b = blockIdx.z;
  const float* in = src + b * s.batch_stride;
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    uint32_t r = r0 + threadIdx.x, c = c0 + j;
    if (r < s.rows && c < s.cols) tile[j][threadIdx.x] = in[c * s.ld + r];
  }
  __syncthreads();
  float* o = out + b * s.out_batch_stride;
  for (int j = threadIdx.y; j < kTile; j += kTileRows) {
    uint32_t r = r0 + j, c = c0 + threadIdx.x;
    if (r >= s.rows || c >= s.cols) continue;
    float x = tile[threadIdx.x][j];
    for (int p = 0; p < 3; ++p) o[r * out_ld + p * k + c] = piece(x, s.small_pieces, p);
  }
}

}  // namespace

void split_tf32x3(const float* src, float* out, const Tf32x3Layout& layout, int device) {
  uint64_t total = uint64_t{layout.rows} * layout.cols * layout.batch;
  if (total == 0) return;
  if (layout.k_is_rows) {
    auto blocks = static_cast<unsigned>(std::min<uint64_t>((total + kThreads - 1) / kThreads, 65535u * 8));
    split_kernel<<<blocks, kThreads, 0, stream(device)>>>(src, out, layout, static_cast<uint32_t>(total));
  } else {
    dim3 grid((layout.rows + kTile - 1) / kTile, (layout.cols + kTile - 1) / kTile, layout.batch);
    split_transposed_kernel<<<grid, dim3(kTile, kTileRows), 0, stream(device)>>>(src, out, layout);
  }
  check_launch("matmul");
}

}  // namespace scorch::backends::cuda::kernels
