// Flash attention kernels (flash_attention.h). A block of 4 warps owns 64 rows (queries in the forward, keys in
// the backward), 16 per warp; the other side streams through shared memory in tiles of 64. Scores, softmax and
// gradients stay in f32 registers; only the operands of each product are rounded to the inputs' dtype.
#include <cmath>

#include "scorch/backends/cuda/kernels/attention_mask.cuh"
#include "scorch/backends/cuda/kernels/device.cuh"
#include "scorch/backends/cuda/kernels/flash_attention.h"
#include "scorch/backends/cuda/kernels/flash_mma.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels::flash {
namespace {

constexpr int kTile = 64;          // rows per block and per streamed tile
constexpr int kBlockThreads = 128;  // 4 warps of 16 rows
constexpr int kScorePitch = kTile + 8;

/// A [batch, heads, seq, d] operand: element strides of batch, head and row (the last dim is contiguous).
template <class E> struct Operand {
  E* data;
  int64_t batch, head, row;
  __device__ E* at(int64_t bh, int64_t heads, int64_t r) const {
    return data + (bh / heads) * batch + (bh % heads) * head + r * row;
  }
};

struct Problem {
  int64_t heads, seq_q, seq_k;
  float scale;
  MaskRows mask;
};

/// Loads rows [r0, r0 + 64) of x's head bh into the tile (rows past `rows` are zeros), 16 bytes per thread and step.
template <class E, int D> __device__ void load_tile(E* tile, const Operand<const E>& x, int64_t bh, int64_t heads,
                                                    int64_t r0, int64_t rows) {
  constexpr int kChunks = D / 8;
  for (int c = threadIdx.x; c < kTile * kChunks; c += kBlockThreads) {
    int r = c / kChunks, col = (c % kChunks) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (r0 + r < rows) v = *reinterpret_cast<const uint4*>(x.at(bh, heads, r0 + r) + col);
    *reinterpret_cast<uint4*>(tile + r * (D + 8) + col) = v;
  }
}

__device__ __forceinline__ float nan_max(float a, float b) { return (a != a || a > b) ? a : b; }
/// The max over the 4 threads of a quad (the threads that hold one accumulator row).
__device__ __forceinline__ float quad_max(float v) {
  v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return nan_max(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ __forceinline__ float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

/// The running softmax of one warp's 16 query rows: per thread rows g (index 0) and g + 8 (index 1).
struct OnlineSoftmax {
  float max[2] = {-INFINITY, -INFINITY}, sum[2] = {0, 0};

  /// Scales the scores s (already masked and scaled) into exp(s - running max), rescaling sum and out.
  template <int N> __device__ void update(float (&s)[8][4], float (&out)[N][4]) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int j = 0; j < 8; ++j) tile_max = nan_max(tile_max, nan_max(s[j][2 * r], s[j][2 * r + 1]));
      float next = nan_max(max[r], quad_max(tile_max));
      // A row with every key so far masked keeps max -inf: its terms are exp(-inf) = 0, not exp(-inf + inf).
      float base = next == -INFINITY ? 0.f : next;
      float alpha = __expf(max[r] - base);
      max[r] = next, sum[r] *= alpha;
#pragma unroll
      for (int n = 0; n < N; ++n) out[n][2 * r] *= alpha, out[n][2 * r + 1] *= alpha;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        s[j][2 * r] = __expf(s[j][2 * r] - base), s[j][2 * r + 1] = __expf(s[j][2 * r + 1] - base);
        sum[r] += s[j][2 * r] + s[j][2 * r + 1];
      }
    }
  }
};

/// Scores of query rows `rows` against keys k0 + 8j + 2t + e, scaled; -inf past the keys and where masked.
__device__ void mask_scores(float (&s)[8][4], const Problem& p, const bool* const* mask_row, int64_t k0) {
  int t = lane_id() % 4;
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int64_t key = k0 + 8 * j + 2 * t + (e & 1);
      bool off = key >= p.seq_k || p.mask.masked(mask_row[e / 2], key);
      s[j][e] = off ? -INFINITY : s[j][e] * p.scale;
    }
}

template <class E, int D>
__global__ __launch_bounds__(kBlockThreads) void forward_kernel(Operand<const E> q, Operand<const E> k,
                                                                Operand<const E> v, Operand<E> out, float* lse,
                                                                Problem p) {
  constexpr int kPitch = D + 8;
  extern __shared__ __align__(16) unsigned char shared[];
  E* qs = reinterpret_cast<E*>(shared);
  E *ks = qs + kTile * kPitch, *vs = ks + kTile * kPitch;
  int64_t blocks_q = (p.seq_q + kTile - 1) / kTile;
  int64_t bh = blockIdx.x / blocks_q, q0 = (blockIdx.x % blocks_q) * kTile;
  int warp = threadIdx.x / 32, g = lane_id() / 4, t = lane_id() % 4;
  int64_t rows[2] = {q0 + 16 * warp + g, q0 + 16 * warp + g + 8};
  const bool* mask_row[2];
  for (int r = 0; r < 2; ++r) mask_row[r] = rows[r] < p.seq_q ? p.mask.row(bh * p.seq_q + rows[r]) : nullptr;

  load_tile<E, D>(qs, q, bh, p.heads, q0, p.seq_q);
  float acc[D / 8][4] = {};
  OnlineSoftmax softmax;
  for (int64_t k0 = 0; k0 < p.seq_k; k0 += kTile) {
    __syncthreads();  // the previous tiles are consumed
    load_tile<E, D>(ks, k, bh, p.heads, k0, p.seq_k);
    load_tile<E, D>(vs, v, bh, p.heads, k0, p.seq_k);
    __syncthreads();
    float s[8][4] = {};
    mma_rows_rows<E, D>(s, qs, 16 * warp, ks, kPitch);
    mask_scores(s, p, mask_row, k0);
    softmax.update(s, acc);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t a[4];
      accumulators_as_a<E>(a, s, kk);
      mma_rows_b_t<E>(acc, a, vs, kPitch, 16 * kk);
    }
  }
  for (int r = 0; r < 2; ++r) {
    float sum = quad_sum(softmax.sum[r]);
    if (rows[r] >= p.seq_q) continue;
    float inv = 1.f / sum;  // inf for a row with every key masked: its output is 0·inf = NaN
    E* o = out.at(bh, p.heads, rows[r]) + 2 * t;
#pragma unroll
    for (int n = 0; n < D / 8; ++n)
      *reinterpret_cast<uint32_t*>(o + 8 * n) = pack<E>(acc[n][2 * r] * inv, acc[n][2 * r + 1] * inv);
    float m = softmax.max[r];
    if (t == 0) lse[bh * p.seq_q + rows[r]] = m == -INFINITY ? m : m + logf(sum);
  }
}

/// delta[row] = Σ grad[row] ∘ out[row] in f32 (the backward's rowsum(dO ∘ O)), one warp per query row.
template <class G, class E>
__global__ void delta_kernel(Operand<const G> grad, Operand<const E> out, float* delta, int64_t rows, int64_t heads,
                             int64_t seq_q, int d) {
  int64_t row = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32;
  if (row >= rows) return;
  int64_t bh = row / seq_q, i = row % seq_q;
  const G* gr = grad.at(bh, heads, i);
  const E* o = out.at(bh, heads, i);
  float total = 0;
  for (int c = lane_id(); c < d; c += 32) total += static_cast<float>(load(gr + c)) * static_cast<float>(load(o + c));
  for (int s = 16; s > 0; s >>= 1) total += __shfl_xor_sync(0xffffffffu, total, s);
  if (lane_id() == 0) delta[row] = total;
}

/// The backward's shared memory: the block's keys and values, the streamed queries and output gradients, the
/// scores' gradient of the tile (queries × keys) and the tile's log-sum-exp and delta.
template <class E, int D> struct BackwardTiles {
  static constexpr int kPitch = D + 8;
  E *ks, *vs, *qs, *dos, *ds;
  float *lse, *delta;
  __device__ explicit BackwardTiles(unsigned char* shared) {
    ks = reinterpret_cast<E*>(shared);
    vs = ks + kTile * kPitch, qs = vs + kTile * kPitch, dos = qs + kTile * kPitch, ds = dos + kTile * kPitch;
    lse = reinterpret_cast<float*>(ds + kTile * kScorePitch), delta = lse + kTile;
  }
  static constexpr size_t bytes() { return (4 * kTile * kPitch + kTile * kScorePitch) * sizeof(E) + 2 * kTile * 4; }
};

/// Pᵀ for one warp's 16 keys (rows) and the tile's 64 queries (columns): exp(s·scale - lse), 0 past the keys.
template <int D> __device__ void probabilities_t(float (&s)[8][4], const Problem& p, const float* lse, int64_t bh,
                                                 int64_t q0, const int64_t (&keys)[2]) {
  int t = lane_id() % 4;
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int col = 8 * j + 2 * t + (e & 1);
      int64_t key = keys[e / 2], query = q0 + col;
      bool masked = query < p.seq_q && p.mask.masked(p.mask.row(bh * p.seq_q + query), key);
      // A query whose keys are all masked has lse -inf and gives NaN here, as the unfused backward.
      float x = masked ? -INFINITY : s[j][e] * p.scale;
      s[j][e] = key < p.seq_k ? __expf(x - lse[col]) : 0.f;
    }
}

/// dq[q0 + 16·warp + ...] += dS·K for the tile, in f32 atomics, 32 head columns at a time.
template <class E, int D> __device__ void add_query_gradient(const BackwardTiles<E, D>& tiles, float* dq,
                                                             int64_t bh, int64_t q0, const Problem& p) {
  int warp = threadIdx.x / 32, g = lane_id() / 4, t = lane_id() % 4;
#pragma unroll
  for (int c0 = 0; c0 < D; c0 += 32) {
    float acc[4][4] = {};
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t a[4];
      frag_a(a, tiles.ds, kScorePitch, 16 * warp, 16 * kk);
      mma_rows_b_t<E>(acc, a, tiles.ks + c0, BackwardTiles<E, D>::kPitch, 16 * kk);
    }
    for (int r = 0; r < 2; ++r) {
      int64_t query = q0 + 16 * warp + g + 8 * r;
      if (query >= p.seq_q) continue;
      float* row = dq + (bh * p.seq_q + query) * D + c0 + 2 * t;
#pragma unroll
      for (int n = 0; n < 4; ++n) atomicAdd(reinterpret_cast<float2*>(row + 8 * n), make_float2(acc[n][2 * r], acc[n][2 * r + 1]));
    }
  }
}

template <class E, int D>
__global__ __launch_bounds__(kBlockThreads) void backward_kernel(Operand<const E> q, Operand<const E> k,
                                                                 Operand<const E> v, Operand<const E> dout,
                                                                 const float* lse, const float* delta, float* dq,
                                                                 Operand<E> dk, Operand<E> dv, Problem p) {
  constexpr int kPitch = D + 8;
  extern __shared__ __align__(16) unsigned char shared[];
  BackwardTiles<E, D> tiles(shared);
  int64_t blocks_k = (p.seq_k + kTile - 1) / kTile;
  int64_t bh = blockIdx.x / blocks_k, k0 = (blockIdx.x % blocks_k) * kTile;
  int warp = threadIdx.x / 32, g = lane_id() / 4, t = lane_id() % 4;
  int64_t keys[2] = {k0 + 16 * warp + g, k0 + 16 * warp + g + 8};
  load_tile<E, D>(tiles.ks, k, bh, p.heads, k0, p.seq_k);
  load_tile<E, D>(tiles.vs, v, bh, p.heads, k0, p.seq_k);
  float dk_acc[D / 8][4] = {}, dv_acc[D / 8][4] = {};
  for (int64_t q0 = 0; q0 < p.seq_q; q0 += kTile) {
    __syncthreads();  // the previous query tile and scores' gradient are consumed
    load_tile<E, D>(tiles.qs, q, bh, p.heads, q0, p.seq_q);
    load_tile<E, D>(tiles.dos, dout, bh, p.heads, q0, p.seq_q);
    for (int i = threadIdx.x; i < kTile; i += kBlockThreads) {
      bool in = q0 + i < p.seq_q;
      tiles.lse[i] = in ? lse[bh * p.seq_q + q0 + i] : INFINITY;  // exp(x - inf) = 0 past the queries
      tiles.delta[i] = in ? delta[bh * p.seq_q + q0 + i] : 0.f;
    }
    __syncthreads();
    float s[8][4] = {}, dp[8][4] = {};
    mma_rows_rows<E, D>(s, tiles.ks, 16 * warp, tiles.qs, kPitch);  // Sᵀ = K·Qᵀ
    probabilities_t<D>(s, p, tiles.lse, bh, q0, keys);
    mma_rows_rows<E, D>(dp, tiles.vs, 16 * warp, tiles.dos, kPitch);  // dPᵀ = V·dOᵀ
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {  // dV += Pᵀ·dO
      uint32_t a[4];
      accumulators_as_a<E>(a, s, kk);
      mma_rows_b_t<E>(dv_acc, a, tiles.dos, kPitch, 16 * kk);
    }
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // dSᵀ = Pᵀ ∘ (dPᵀ - delta) · scale, also stored as dS for dQ
        int col = 8 * j + 2 * t + (e & 1);
        s[j][e] = s[j][e] * (dp[j][e] - tiles.delta[col]) * p.scale;
        tiles.ds[col * kScorePitch + 16 * warp + g + 8 * (e / 2)] = to_storage<E>(s[j][e]);
      }
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {  // dK += dSᵀ·Q
      uint32_t a[4];
      accumulators_as_a<E>(a, s, kk);
      mma_rows_b_t<E>(dk_acc, a, tiles.qs, kPitch, 16 * kk);
    }
    __syncthreads();
    add_query_gradient<E, D>(tiles, dq, bh, q0, p);
  }
  for (int r = 0; r < 2; ++r) {
    if (keys[r] >= p.seq_k) continue;
    E* dkr = dk.at(bh, p.heads, keys[r]) + 2 * t;
    E* dvr = dv.at(bh, p.heads, keys[r]) + 2 * t;
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      *reinterpret_cast<uint32_t*>(dkr + 8 * n) = pack<E>(dk_acc[n][2 * r], dk_acc[n][2 * r + 1]);
      *reinterpret_cast<uint32_t*>(dvr + 8 * n) = pack<E>(dv_acc[n][2 * r], dv_acc[n][2 * r + 1]);
    }
  }
}

/// dq (f32, [batch·heads, seq_q, d] contiguous) written into out's layout in E, two elements per thread.
template <class E>
__global__ void store_query_gradient(const float* dq, Operand<E> out, int64_t pairs, int64_t heads, int64_t seq_q,
                                     int d) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  int64_t e = 2 * i, c = e % d, row = e / d;
  *reinterpret_cast<uint32_t*>(out.at(row / seq_q, heads, row % seq_q) + c) = pack<E>(dq[e], dq[e + 1]);
}

}  // namespace

namespace {

bool head_size_supported(size_t d) { return d == 32 || d == 64 || d == 128; }

/// x in dtype, its last dim contiguous and its other strides (of dims larger than 1) and start 16-byte aligned, as
/// load_tile reads it: x itself when it already is.
CudaTensor readable(CudaTensor x, DType dtype) {
  if (x.dtype() != dtype) x = to_dtype(x, dtype);
  auto aligned = [](const CudaTensor& t) {
    if (reinterpret_cast<uintptr_t>(t.raw()) % 16 != 0 || t.strides()[3] != 1) return false;
    for (size_t d = 0; d < 3; ++d)
      if (t.shape()[d] > 1 && t.strides()[d] % 8 != 0) return false;
    return true;
  };
  if (aligned(x)) return x;
  CudaTensor copy(x.shape(), dtype, x.device());
  assign_view(copy, x);
  return copy;
}

/// A fresh [batch, heads, seq, d] tensor laid out as `like`: [batch, seq, heads, d] in memory when like's heads are
/// closer together than its rows (a projection's head view), row-major otherwise.
CudaTensor output_like(const CudaTensor& like, size_t d, DType dtype) {
  const Shape& s = like.shape();
  Shape shape{s[0], s[1], s[2], d};
  if (!(like.strides()[1] < like.strides()[2] && s[1] > 1 && s[2] > 1)) return CudaTensor(shape, dtype, like.device());
  CudaTensor memory(Shape{s[0], s[2], s[1], d}, dtype, like.device());
  auto h = static_cast<int64_t>(s[1]), n = static_cast<int64_t>(s[2]), dd = static_cast<int64_t>(d);
  Strides strides{n * h * dd, dd, h * dd, 1};
  return CudaTensor(memory.storage(), shape, strides, 0, dtype);
}

template <class E> Operand<E> operand(const CudaTensor& x) {
  const Strides& s = x.strides();
  return {x.data<E>(), s[0], s[1], s[2]};
}

Problem problem(const CudaTensor& q, const CudaTensor& k, const std::optional<CudaTensor>& mask, double scale) {
  const Shape& s = q.shape();
  Shape scores{s[0], s[1], s[2], k.shape()[2]};
  return {static_cast<int64_t>(s[1]), static_cast<int64_t>(s[2]), static_cast<int64_t>(k.shape()[2]),
          static_cast<float>(scale), mask_rows(mask, scores)};
}

/// Calls f.template operator()<E, D>() for the operands' storage type and head size.
template <class F> void dispatch(DType dtype, size_t d, F&& f) {
  auto sized = [&]<class E>() {
    if (d == 32) return f.template operator()<E, 32>();
    if (d == 64) return f.template operator()<E, 64>();
    return f.template operator()<E, 128>();
  };
  if (dtype == DType::BF16) return sized.template operator()<__nv_bfloat16>();
  sized.template operator()<__half>();
}

/// Launches kernel on `blocks` blocks with `bytes` of dynamic shared memory (raising the kernel's limit past 48 KiB).
template <class K, class... A> void launch(K kernel, int64_t blocks, size_t bytes, int device, A... args) {
  if (bytes > 48 * 1024)
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "attention");
  kernel<<<static_cast<unsigned>(blocks), kBlockThreads, bytes, stream(device)>>>(args...);
  check_launch("attention");
}

int64_t tiles_of(int64_t n) { return (n + kTile - 1) / kTile; }

}  // namespace

bool supports(const CudaTensor& q, const CudaTensor& k, const CudaTensor& v) {
  DType d = q.dtype();
  if ((d != DType::F16 && d != DType::BF16) || k.dtype() != d || v.dtype() != d) return false;
  size_t dk = q.shape()[3];
  return head_size_supported(dk) && v.shape()[3] == dk && q.shape()[2] > 0 && k.shape()[2] > 0;
}

std::pair<CudaTensor, CudaTensor> forward(const CudaTensor& q_in, const CudaTensor& k_in, const CudaTensor& v_in,
                                          const std::optional<CudaTensor>& mask, double scale) {
  DType dtype = q_in.dtype();
  CudaTensor q = readable(q_in, dtype), k = readable(k_in, dtype), v = readable(v_in, dtype);
  const Shape& s = q.shape();
  size_t d = s[3];
  CudaTensor out = output_like(q_in, d, dtype), lse(Shape{s[0], s[1], s[2]}, DType::F32, q.device());
  int64_t bh = static_cast<int64_t>(s[0] * s[1]);
  if (bh == 0) return {out, lse};
  Problem p = problem(q, k, mask, scale);
  dispatch(dtype, d, [&]<class E, int D>() {
    size_t bytes = 3 * kTile * (D + 8) * sizeof(E);
    launch(forward_kernel<E, D>, bh * tiles_of(p.seq_q), bytes, q.device().index, operand<const E>(q),
           operand<const E>(k), operand<const E>(v), operand<E>(out), lse.data<float>(), p);
  });
  return {out, lse};
}

AttentionGradients<CudaTensor> backward(const CudaTensor& q_in, const CudaTensor& k_in, const CudaTensor& v_in,
                                        const std::optional<CudaTensor>& mask, double scale, const CudaTensor& out_in,
                                        const CudaTensor& logsumexp, const CudaTensor& grad_in) {
  DType dtype = q_in.dtype();
  CudaTensor q = readable(q_in, dtype), k = readable(k_in, dtype), v = readable(v_in, dtype);
  CudaTensor out = readable(out_in, dtype), dout = readable(grad_in, dtype);
  CudaTensor lse = contiguous(logsumexp.dtype() == DType::F32 ? logsumexp : to_dtype(logsumexp, DType::F32));
  const Shape& s = q.shape();
  size_t d = s[3];
  int64_t bh = static_cast<int64_t>(s[0] * s[1]), rows = bh * static_cast<int64_t>(s[2]);
  CudaTensor dq = output_like(q_in, d, dtype), dk = output_like(k_in, d, dtype), dv = output_like(v_in, d, dtype);
  if (bh == 0) return {dq, dk, dv};
  int device = q.device().index;
  cudaStream_t st = stream(device);
  CudaTensor delta(Shape{static_cast<size_t>(rows)}, DType::F32, q.device());
  CudaTensor dq32(Shape{static_cast<size_t>(rows), d}, DType::F32, q.device());
  check(cudaMemsetAsync(dq32.raw(), 0, dq32.numel() * sizeof(float), st), "attention_backward");
  // delta = rowsum(grad ∘ out) from grad as given (f32 under autocast), before any rounding to the inputs' dtype.
  CudaTensor grad = readable(grad_in, grad_in.dtype() == dtype ? dtype : DType::F32);
  Problem p = problem(q, k, mask, scale);
  dispatch(dtype, d, [&]<class E, int D>() {
    auto delta_for = [&]<class G>() {
      delta_kernel<G, E><<<blocks_for(rows * 32), kThreads, 0, st>>>(operand<const G>(grad), operand<const E>(out),
                                                                     delta.data<float>(), rows, p.heads, p.seq_q, D);
    };
    if (grad.dtype() == DType::F32) delta_for.template operator()<float>();
    else delta_for.template operator()<E>();
    check_launch("attention_backward");
    launch(backward_kernel<E, D>, bh * tiles_of(p.seq_k), BackwardTiles<E, D>::bytes(), device, operand<const E>(q),
           operand<const E>(k), operand<const E>(v), operand<const E>(dout), lse.data<float>(), delta.data<float>(),
           dq32.data<float>(), operand<E>(dk), operand<E>(dv), p);
    int64_t pairs = rows * D / 2;
    store_query_gradient<E><<<blocks_for(pairs), kThreads, 0, st>>>(dq32.data<float>(), operand<E>(dq), pairs,
                                                                    p.heads, p.seq_q, D);
    check_launch("attention_backward");
  });
  return {dq, dk, dv};
}

}  // namespace scorch::backends::cuda::kernels::flash
