// Flash attention kernels (flash_attention.h). A block of 8 warps owns 128 rows (queries in the forward, keys in
// the backward), 16 per warp; the other side streams through shared memory in tiles of 64, the next tile copied
// (cp.async) while the current one is computed. Scores, softmax and gradients stay in f32 registers; only the
// operands of each product are rounded to the inputs' dtype (f32's split into 3xTF32 pieces). A warp skips the
// products of a tile whose scores it finds all masked. Dropout's factors (DropoutMask) are drawn in registers where
// the probabilities meet v or dO.
#include <cmath>

#include "scorch/backend/attention_dropout.h"
#include "scorch/backends/cuda/kernels/attention_mask.cuh"
#include "scorch/backends/cuda/kernels/device.cuh"
#include "scorch/backends/cuda/kernels/flash_attention.h"
#include "scorch/backends/cuda/kernels/flash_mma.cuh"
#include "scorch/backends/cuda/kernels/kernels.h"

namespace scorch::backends::cuda::kernels::flash {
namespace {

constexpr int kTile = 64;            // rows per streamed tile
constexpr int kWarps = 8;            // per block, each owning 16 rows
constexpr int kBlockRows = 16 * kWarps;
constexpr int kBlockThreads = 32 * kWarps;
constexpr int kScorePitch = kBlockRows + 8;  // the backward's scores' gradient: a query tile × the block's keys
/// Tiles in flight in the backward: two (copy the next while computing this one) for 16-bit E up to head size 64;
/// one at 128 and for f32 (whose tiles are split in pieces), where two would not fit beside the block's keys,
/// values and scores' gradient. The forward always keeps two.
template <class E, int D> constexpr int kStages = sizeof(E) == 2 && D <= 64 ? 2 : 1;
/// Copies of a streamed tile in shared memory: f32 keeps its TF32 pieces (big where the tile landed, then small).
template <class E> constexpr int kPieces = std::is_same_v<E, float> ? 2 : 1;
/// A streamed tile as the products read it: for f32, its pieces (split_tile), otherwise the elements.
template <class E> using StreamedTile = std::conditional_t<std::is_same_v<E, float>, Tf32Tile, const E*>;
/// Elements from one row of a tile to the next: 16 bytes past the row (D + 8 for 16-bit E, D + 4 for f32; the
/// fragment reads of flash_mma.cuh are then free of bank conflicts).
template <class E, int D> constexpr int kTilePitch = D + 16 / static_cast<int>(sizeof(E));
/// Head sizes the kernels take for E: 32, 64 and 128 for 16-bit E; 32 and 64 for f32, whose backward tiles at 128
/// would not fit in shared memory.
template <class E> constexpr bool kHeadSize(size_t d) {
  return d == 32 || d == 64 || (d == 128 && sizeof(E) == 2);
}
constexpr int kForwardStages = 2;

/// A [batch, heads, seq, d] operand: element strides of batch, head and row (the last dim is contiguous).
template <class E> struct Operand {
  E* data;
  int64_t batch, head, row;
  /// Row 0 of head bh (= batch · heads + head).
  __device__ E* head_start(int64_t bh, int64_t heads) const {
    return data + (bh / heads) * batch + (bh % heads) * head;
  }
};

struct Problem {
  int64_t heads, seq_q, seq_k;
  float scale;
  MaskRows mask;  // with the causal flag
  DropoutMask dropout;
};

__device__ __forceinline__ void copy_16_bytes_async(void* shared, const void* global, bool valid) {
  auto address = static_cast<uint32_t>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
/// Waits until at most `pending` groups of copies are in flight.
template <int pending> __device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
}

/// Starts copying rows [r0, r0 + N) of a head (row 0 at head, rows apart by row_stride) into the tile; rows past
/// `rows` become zeros.
template <class E, int D, int N = kTile>
__device__ void load_tile_async(E* tile, const E* head, int64_t row_stride, int64_t r0, int64_t rows) {
  constexpr int kPerCopy = 16 / sizeof(E), kChunks = D / kPerCopy;
  for (int c = threadIdx.x; c < N * kChunks; c += kBlockThreads) {
    int r = c / kChunks, col = (c % kChunks) * kPerCopy;
    bool valid = r0 + r < rows;
    copy_16_bytes_async(tile + r * kTilePitch<E, D> + col, valid ? head + (r0 + r) * row_stride + col : head, valid);
  }
}

/// The tile at `raw` (tile_elements apart from its small pieces for f32) as the products read it.
template <class E> __device__ __forceinline__ StreamedTile<E> streamed(const E* raw, int tile_elements) {
  if constexpr (std::is_same_v<E, float>) {
    const auto* big = reinterpret_cast<const uint32_t*>(raw);
    return {big, big + tile_elements};
  } else {
    return raw;
  }
}
/// For f32, splits the `rows` × D tile at raw (as copied in) into its TF32 pieces: big in place, small
/// tile_elements further; each thread takes its own elements (callers synchronize before and after).
template <class E, int D> __device__ void split_tile(E* raw, int rows, int tile_elements) {
  if constexpr (std::is_same_v<E, float>) {
    auto* big = reinterpret_cast<uint32_t*>(raw);
    for (int i = threadIdx.x; i < rows * D; i += kBlockThreads) {
      int at = (i / D) * kTilePitch<E, D> + i % D;
      split(raw[at], big[at], big[at + tile_elements]);
    }
  }
}

/// The max over the 4 threads of a quad (the threads that hold one accumulator row).
__device__ __forceinline__ float quad_max(float v) {
  v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return nan_max(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ __forceinline__ float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

/// The bits f(c, e, query, key) of a thread's 32 accumulator elements of a 16 × 64 tile (bit 4j + e for c[j][e]):
/// rows row[e / 2] against columns col0 + c, c = 8j + 2t + (e & 1) the column within the tile; rows and columns are
/// queries and keys as `transposed` says not.
template <class F>
__device__ __forceinline__ uint32_t tile_bits(const int64_t (&row)[2], int64_t col0, bool transposed, F f) {
  int t = lane_id() % 4;
  uint32_t bits = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int c = 8 * j + 2 * t + (e & 1);
      int64_t col = col0 + c, r = row[e / 2];
      bool bit = transposed ? f(c, e, col, r) : f(c, e, r, col);
      bits |= uint32_t{bit} << (4 * j + e);
    }
  return bits;
}

/// Which of a thread's 32 accumulator elements of a 16 × 64 score tile are masked (tile_bits): out of range,
/// causal, or hidden by the mask (mask_row: the rows' mask values, or nullptr; per column when transposed).
__device__ uint32_t masked_bits(const Problem& p, const int64_t (&row)[2], const bool* const* mask_row,
                               int64_t col0, bool transposed) {
  int64_t rows = transposed ? p.seq_k : p.seq_q, cols = transposed ? p.seq_q : p.seq_k;
  if (!p.mask.data && !p.mask.causal && col0 + kTile <= cols && row[1] < rows) return 0;
  return tile_bits(row, col0, transposed, [&](int c, int e, int64_t query, int64_t key) {
    const bool* values = transposed ? mask_row[c] : mask_row[e / 2];
    return key >= p.seq_k || query >= p.seq_q || (p.mask.causal && key > query) || p.mask.masked(values, key);
  });
}

/// Which of a thread's 32 accumulator elements of a 16 × 64 tile of head bh dropout keeps (tile_bits; all without
/// dropout).
__device__ uint32_t kept_bits(const Problem& p, int64_t bh, const int64_t (&row)[2], int64_t col0, bool transposed) {
  if (!p.dropout.active) return 0xffffffffu;
  return tile_bits(row, col0, transposed, [&](int, int, int64_t query, int64_t key) {
    return p.dropout.keeps(static_cast<uint64_t>((bh * p.seq_q + query) * p.seq_k + key));
  });
}
/// c[j][e] times its dropout factor: kept_scale where bit 4j + e of kept is set, else 0.
__device__ __forceinline__ float dropped(const float (&c)[8][4], int j, int e, uint32_t kept, float kept_scale) {
  return (kept >> (4 * j + e)) & 1 ? c[j][e] * kept_scale : 0.f;
}
/// Multiplies each of c by its dropout factor (bits kept).
__device__ __forceinline__ void apply_dropout(float (&c)[8][4], uint32_t kept, const DropoutMask& dropout) {
  auto kept_scale = static_cast<float>(dropout.kept_scale);
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) c[j][e] = dropped(c, j, e, kept, kept_scale);
}
/// accumulators_as_a of the accumulators times their dropout factors.
template <class E> __device__ __forceinline__ void dropped_as_a(FragA<E>& a, const float (&c)[8][4], int kk,
                                                               uint32_t kept, float kept_scale) {
  float lo[4], hi[4];
#pragma unroll
  for (int e = 0; e < 4; ++e)
    lo[e] = dropped(c, 2 * kk, e, kept, kept_scale), hi[e] = dropped(c, 2 * kk + 1, e, kept, kept_scale);
  as_a<E>(a, lo, hi);
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

/// Row r (0: g, 1: g + 8) of a warp's accumulators, rounded to E, at dst (a row of d values).
template <class E, int D> __device__ void write_row(E* dst, const float (&acc)[D / 8][4], int r) {
  E* at = dst + 2 * (lane_id() % 4);
#pragma unroll
  for (int n = 0; n < D / 8; ++n) store_pair<E>(at + 8 * n, acc[n][2 * r], acc[n][2 * r + 1]);
}

/// Writes a warp's rows of the output (acc / sum, scaling acc) and their log-sum-exp.
template <class E, int D>
__device__ void write_output(float (&acc)[D / 8][4], const OnlineSoftmax& softmax, const Operand<E>& out, float* lse,
                             int64_t bh, const int64_t (&rows)[2], const Problem& p) {
  for (int r = 0; r < 2; ++r) {
    float sum = quad_sum(softmax.sum[r]);
    if (rows[r] >= p.seq_q) continue;
    float inv = 1.f / sum;  // inf for a row with every key masked: its output is 0·inf = NaN
#pragma unroll
    for (int n = 0; n < D / 8; ++n) acc[n][2 * r] *= inv, acc[n][2 * r + 1] *= inv;
    write_row<E, D>(out.head_start(bh, p.heads) + rows[r] * out.row, acc, r);
    float m = softmax.max[r];
    if (lane_id() % 4 == 0) lse[bh * p.seq_q + rows[r]] = m == -INFINITY ? m : m + logf(sum);
  }
}

/// The forward's key tiles: all, or for a causal problem those with a key ≤ the block's last query.
__device__ int64_t key_tiles(const Problem& p, int64_t q0) {
  int64_t all = (p.seq_k + kTile - 1) / kTile, seen = (q0 + kBlockRows - 1) / kTile + 1;
  return p.mask.causal && seen < all ? seen : all;
}

template <class E, int D>
__global__ __launch_bounds__(kBlockThreads) void forward_kernel(Operand<const E> q, Operand<const E> k,
                                                                Operand<const E> v, Operand<E> out, float* lse,
                                                                Problem p) {
  constexpr int kPitch = kTilePitch<E, D>, kTileElements = kTile * kPitch;
  extern __shared__ __align__(16) unsigned char shared[];
  E* qs = reinterpret_cast<E*>(shared);
  E* kv = qs + kBlockRows * kPitch;  // per stage: keys, then values (each in kPieces<E> copies)
  constexpr int kStageElements = 2 * kPieces<E> * kTileElements, kValues = kPieces<E> * kTileElements;
  int64_t blocks_q = (p.seq_q + kBlockRows - 1) / kBlockRows;
  int64_t bh = blockIdx.x / blocks_q, q0 = (blockIdx.x % blocks_q) * kBlockRows;
  int warp = threadIdx.x / 32, g = lane_id() / 4;
  int64_t rows[2] = {q0 + 16 * warp + g, q0 + 16 * warp + g + 8};
  const bool* mask_row[2];
  for (int r = 0; r < 2; ++r) mask_row[r] = rows[r] < p.seq_q ? p.mask.row(bh * p.seq_q + rows[r]) : nullptr;
  const E *k_head = k.head_start(bh, p.heads), *v_head = v.head_start(bh, p.heads);
  auto load_keys = [&](int64_t tile) {
    E* stage = kv + (tile % kForwardStages) * kStageElements;
    load_tile_async<E, D>(stage, k_head, k.row, tile * kTile, p.seq_k);
    load_tile_async<E, D>(stage + kValues, v_head, v.row, tile * kTile, p.seq_k);
    commit_copies();
  };
  load_tile_async<E, D, kBlockRows>(qs, q.head_start(bh, p.heads), q.row, q0, p.seq_q);
  load_keys(0);
  float acc[D / 8][4] = {};
  OnlineSoftmax softmax;
  int64_t tiles = key_tiles(p, q0);
  for (int64_t tile = 0; tile < tiles; ++tile) {
    if (tile + 1 < tiles) {
      load_keys(tile + 1);
      wait_copies<1>();
    } else {
      wait_copies<0>();
    }
    __syncthreads();
    E* ks = kv + (tile % kForwardStages) * kStageElements;
    if constexpr (kPieces<E> == 2) {
      split_tile<E, D>(ks, kTile, kTileElements), split_tile<E, D>(ks + kValues, kTile, kTileElements);
      __syncthreads();
    }
    uint32_t off = masked_bits(p, rows, mask_row, tile * kTile, false);
    if (!__all_sync(0xffffffffu, off == 0xffffffffu)) {
      float s[8][4] = {};
      mma_rows_rows<E, D>(s, qs, 16 * warp, streamed(ks, kTileElements), kPitch);
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[j][e] = (off >> (4 * j + e)) & 1 ? -INFINITY : s[j][e] * p.scale;
      softmax.update(s, acc);  // the running sums count every probability, dropout or not
      if (p.dropout.active) apply_dropout(s, kept_bits(p, bh, rows, tile * kTile, false), p.dropout);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        FragA<E> a;
        accumulators_as_a<E>(a, s, kk);
        mma_rows_b_t<E>(acc, a, streamed(ks + kValues, kTileElements), kPitch, 16 * kk);
      }
    }
    if (tile + 1 < tiles) __syncthreads();  // this stage is consumed before it is refilled
  }
  write_output<E, D>(acc, softmax, out, lse, bh, rows, p);
}

/// 8 consecutive values at p (16-byte aligned) as floats: one 16-byte load for 2-byte types, two for f32.
template <class E> __device__ __forceinline__ void load_8(const E* p, float (&out)[8]) {
  if constexpr (std::is_same_v<E, float>) {
    float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
    out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w, out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
  } else {
    uint4 w = *reinterpret_cast<const uint4*>(p);
    const E* e = reinterpret_cast<const E*>(&w);
#pragma unroll
    for (int i = 0; i < 8; ++i) out[i] = static_cast<float>(e[i]);
  }
}

/// delta[row] = Σ grad[row] ∘ out[row] in f32 (the backward's rowsum(dO ∘ O)): D / 8 threads per row, each reading
/// 8 values of each with one or two vector loads; zeroes the row of dq (f32, [rows, D]) the backward adds into.
template <class G, class E, int D>
__global__ void delta_kernel(Operand<const G> grad, Operand<const E> out, float* delta, float* dq, int64_t rows,
                             int64_t heads, int64_t seq_q) {
  constexpr int kLanes = D / 8;  // 4, 8 or 16: a power of two within a warp
  int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, row = thread / kLanes;
  int part = static_cast<int>(thread % kLanes);
  float total = 0;
  if (row < rows) {
    int64_t bh = row / seq_q, i = row % seq_q;
    float g[8], o[8];
    load_8(grad.head_start(bh, heads) + i * grad.row + 8 * part, g);
    load_8(out.head_start(bh, heads) + i * out.row + 8 * part, o);
#pragma unroll
    for (int c = 0; c < 8; ++c) total += g[c] * o[c];
    auto* zero = reinterpret_cast<float4*>(dq + row * D + 8 * part);
    zero[0] = zero[1] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  for (int s = kLanes / 2; s > 0; s >>= 1) total += __shfl_xor_sync(0xffffffffu, total, s);
  if (row < rows && part == 0) delta[row] = total;
}

/// The backward's shared memory: the block's keys (in kPieces<E> copies) and values, the scores' gradient of a query
/// tile (queries × the block's keys), and per stage the streamed queries and output gradients (each in kPieces<E>
/// copies), log-sum-exp, delta and mask rows.
template <class E, int D> struct BackwardTiles {
  static constexpr int kPitch = kTilePitch<E, D>, kTileElements = kTile * kPitch;
  static constexpr int kKeyElements = kBlockRows * kPitch, kCopy = kPieces<E> * kTileElements;
  struct Stage {
    E *qs, *dos;  // where the tiles are copied in
    float *lse, *delta;
    const bool** mask_rows;
    /// The queries and output gradients as the products read them (split_tile first for f32).
    __device__ StreamedTile<E> q_tile() const { return streamed(qs, kTileElements); }
    __device__ StreamedTile<E> do_tile() const { return streamed(dos, kTileElements); }
  };
  E *ks, *vs, *ds;
  unsigned char* stages;
  __device__ explicit BackwardTiles(unsigned char* shared) {
    ks = reinterpret_cast<E*>(shared);
    vs = ks + kPieces<E> * kKeyElements, ds = vs + kKeyElements;
    stages = reinterpret_cast<unsigned char*>(ds + kTile * kScorePitch);
  }
  static constexpr size_t kStageBytes = 2 * kCopy * sizeof(E) + kTile * (sizeof(bool*) + 2 * sizeof(float));
  __device__ Stage stage(int64_t tile) const {
    unsigned char* base = stages + (tile % kStages<E, D>) * kStageBytes;
    E* qs = reinterpret_cast<E*>(base);
    auto* rows = reinterpret_cast<const bool**>(qs + 2 * kCopy);
    auto* lse = reinterpret_cast<float*>(rows + kTile);
    return {qs, qs + kCopy, lse, lse + kTile, rows};
  }
  static constexpr size_t bytes() {
    return ((1 + kPieces<E>) * kKeyElements + kTile * kScorePitch) * sizeof(E) + kStages<E, D> * kStageBytes;
  }
  /// The keys from column c0 on as the products read them (split_tile first for f32).
  __device__ StreamedTile<E> keys(int c0 = 0) const { return streamed(ks + c0, kKeyElements); }
};

/// Pᵀ for one warp's 16 keys (rows) and a tile's 64 queries (columns): exp(s·scale - lse), 0 where masked and for
/// a query whose keys are all masked (lse -inf).
__device__ void probabilities_t(float (&s)[8][4], uint32_t off, const Problem& p, const float* lse) {
  int t = lane_id() % 4;
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float l = lse[8 * j + 2 * t + (e & 1)];
      s[j][e] = ((off >> (4 * j + e)) & 1) || l == -INFINITY ? 0.f : __expf(s[j][e] * p.scale - l);
    }
}

/// dq[q0 ...] += dS·K for a query tile and the block's keys, in f32 atomics: warp w takes 16 queries and half the
/// head columns, 32 (or 16) at a time.
template <class E, int D> __device__ void add_query_gradient(const BackwardTiles<E, D>& tiles, float* dq,
                                                             int64_t bh, int64_t q0, const Problem& p) {
  constexpr int kHalf = D / 2, kChunk = kHalf < 32 ? kHalf : 32;
  int warp = threadIdx.x / 32, g = lane_id() / 4, t = lane_id() % 4;
  int r0 = 16 * (warp % 4), half = warp / 4;
#pragma unroll
  for (int c0 = half * kHalf; c0 < (half + 1) * kHalf; c0 += kChunk) {
    float acc[kChunk / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < kBlockRows / 16; ++kk) {
      FragA<E> a;
      frag_a_paired(a, tiles.ds, kScorePitch, r0, 16 * kk);
      mma_rows_b_t<E>(acc, a, tiles.keys(c0), BackwardTiles<E, D>::kPitch, 16 * kk);
    }
    for (int r = 0; r < 2; ++r) {
      int64_t query = q0 + r0 + g + 8 * r;
      if (query >= p.seq_q) continue;
      float* row = dq + (bh * p.seq_q + query) * D + c0 + 2 * t;
#pragma unroll
      for (int n = 0; n < kChunk / 8; ++n)
        atomicAdd(reinterpret_cast<float2*>(row + 8 * n), make_float2(acc[n][2 * r], acc[n][2 * r + 1]));
    }
  }
}

/// Starts copying query tile `tile` (queries, output gradients) into its stage and fills its log-sum-exp, delta
/// and mask rows.
template <class E, int D> __device__ void load_query_tile(const BackwardTiles<E, D>& tiles, int64_t tile,
                                                          const E* q_head, int64_t q_row, const E* do_head,
                                                          int64_t do_row, const float* lse, const float* delta,
                                                          int64_t bh, const Problem& p) {
  auto stage = tiles.stage(tile);
  int64_t q0 = tile * kTile;
  load_tile_async<E, D>(stage.qs, q_head, q_row, q0, p.seq_q);
  load_tile_async<E, D>(stage.dos, do_head, do_row, q0, p.seq_q);
  commit_copies();
  for (int i = threadIdx.x; i < kTile; i += kBlockThreads) {
    bool in = q0 + i < p.seq_q;
    int64_t row = bh * p.seq_q + q0 + i;
    stage.lse[i] = in ? lse[row] : -INFINITY;
    stage.delta[i] = in ? delta[row] : 0.f;
    stage.mask_rows[i] = in ? p.mask.row(row) : nullptr;
  }
}

/// For a warp's 16 keys and a query tile: Sᵀ = K·Qᵀ → Pᵀ (into s), dV += (Pᵀ∘Zᵀ)·dO, dPᵀ = V·dOᵀ,
/// dSᵀ = Pᵀ ∘ (dPᵀ∘Zᵀ - delta) · scale (into s), dK += dSᵀ·Q; Z the dropout factors of bits `kept`.
template <class E, int D>
__device__ void key_gradients(float (&s)[8][4], float (&dk_acc)[D / 8][4], float (&dv_acc)[D / 8][4],
                              const BackwardTiles<E, D>& tiles, const typename BackwardTiles<E, D>::Stage& stage,
                              uint32_t off, uint32_t kept, const Problem& p) {
  constexpr int kPitch = kTilePitch<E, D>;
  int warp = threadIdx.x / 32, t = lane_id() % 4;
  float dp[8][4] = {};
  mma_rows_rows<E, D>(s, tiles.keys(), 16 * warp, stage.q_tile(), kPitch);
  probabilities_t(s, off, p, stage.lse);
  mma_rows_rows<E, D>(dp, tiles.vs, 16 * warp, stage.do_tile(), kPitch);
  auto kept_scale = static_cast<float>(p.dropout.kept_scale);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    FragA<E> a;
    if (p.dropout.active) dropped_as_a<E>(a, s, kk, kept, kept_scale);
    else accumulators_as_a<E>(a, s, kk);
    mma_rows_b_t<E>(dv_acc, a, stage.do_tile(), kPitch, 16 * kk);
  }
  if (p.dropout.active) apply_dropout(dp, kept, p.dropout);
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e)  // masked scores get no gradient, even when delta is NaN
      s[j][e] = (off >> (4 * j + e)) & 1 ? 0.f : s[j][e] * (dp[j][e] - stage.delta[8 * j + 2 * t + (e & 1)]) * p.scale;
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    FragA<E> a;
    accumulators_as_a<E>(a, s, kk);
    mma_rows_b_t<E>(dk_acc, a, stage.q_tile(), kPitch, 16 * kk);
  }
}

template <class E, int D>
__global__ __launch_bounds__(kBlockThreads) void backward_kernel(Operand<const E> q, Operand<const E> k,
                                                                 Operand<const E> v, Operand<const E> dout,
                                                                 const float* lse, const float* delta, float* dq,
                                                                 Operand<E> dk, Operand<E> dv, Problem p) {
  extern __shared__ __align__(16) unsigned char shared[];
  BackwardTiles<E, D> tiles(shared);
  int64_t blocks_k = (p.seq_k + kBlockRows - 1) / kBlockRows;
  int64_t bh = blockIdx.x / blocks_k, k0 = (blockIdx.x % blocks_k) * kBlockRows;
  int warp = threadIdx.x / 32, g = lane_id() / 4, t = lane_id() % 4;
  int64_t keys[2] = {k0 + 16 * warp + g, k0 + 16 * warp + g + 8};
  const E *q_head = q.head_start(bh, p.heads), *do_head = dout.head_start(bh, p.heads);
  load_tile_async<E, D, kBlockRows>(tiles.ks, k.head_start(bh, p.heads), k.row, k0, p.seq_k);
  load_tile_async<E, D, kBlockRows>(tiles.vs, v.head_start(bh, p.heads), v.row, k0, p.seq_k);
  int64_t first = p.mask.causal ? k0 / kTile : 0, tiles_q = (p.seq_q + kTile - 1) / kTile;
  if (first < tiles_q) load_query_tile(tiles, first, q_head, q.row, do_head, dout.row, lse, delta, bh, p);
  float dk_acc[D / 8][4] = {}, dv_acc[D / 8][4] = {};
  for (int64_t tile = first; tile < tiles_q; ++tile) {
    if (kStages<E, D> == 2 && tile + 1 < tiles_q) {
      load_query_tile(tiles, tile + 1, q_head, q.row, do_head, dout.row, lse, delta, bh, p);
      wait_copies<1>();
    } else {
      wait_copies<0>();
    }
    __syncthreads();
    auto stage = tiles.stage(tile);
    if constexpr (kPieces<E> == 2) {
      if (tile == first) split_tile<E, D>(tiles.ks, kBlockRows, BackwardTiles<E, D>::kKeyElements);
      split_tile<E, D>(stage.qs, kTile, BackwardTiles<E, D>::kTileElements);
      split_tile<E, D>(stage.dos, kTile, BackwardTiles<E, D>::kTileElements);
      __syncthreads();
    }
    uint32_t off = masked_bits(p, keys, stage.mask_rows, tile * kTile, true);
    float s[8][4] = {};
    if (!__all_sync(0xffffffffu, off == 0xffffffffu))
      key_gradients<E, D>(s, dk_acc, dv_acc, tiles, stage, off, kept_bits(p, bh, keys, tile * kTile, true), p);
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)  // dS (queries × keys) for dQ
        tiles.ds[(8 * j + 2 * t + (e & 1)) * kScorePitch + 16 * warp + g + 8 * (e / 2)] = to_storage<E>(s[j][e]);
    __syncthreads();
    add_query_gradient<E, D>(tiles, dq, bh, tile * kTile, p);
    __syncthreads();  // the scores' gradient and this stage are consumed before they are refilled
    if (kStages<E, D> == 1 && tile + 1 < tiles_q)
      load_query_tile(tiles, tile + 1, q_head, q.row, do_head, dout.row, lse, delta, bh, p);
  }
  if (first >= tiles_q) commit_copies(), wait_copies<0>();  // no query sees these keys: dk = dv = 0
  for (int r = 0; r < 2; ++r) {
    if (keys[r] >= p.seq_k) continue;
    write_row<E, D>(dk.head_start(bh, p.heads) + keys[r] * dk.row, dk_acc, r);
    write_row<E, D>(dv.head_start(bh, p.heads) + keys[r] * dv.row, dv_acc, r);
  }
}

/// dq (f32, [batch·heads, seq_q, d] contiguous) written into out's layout in E, 8 values per thread (two 16-byte
/// reads, one 16-byte write).
template <class E>
__global__ void store_query_gradient(const float* dq, Operand<E> out, int64_t groups, int64_t heads, int64_t seq_q,
                                     int d) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= groups) return;
  int64_t e = 8 * i, c = e % d, row = e / d;
  E* at = out.head_start(row / seq_q, heads) + (row % seq_q) * out.row + c;
  if constexpr (std::is_same_v<E, float>) {
    auto* to = reinterpret_cast<float4*>(at);
    const auto* from = reinterpret_cast<const float4*>(dq + e);
    to[0] = from[0], to[1] = from[1];
  } else {
    float v[8];
    load_8(dq + e, v);
    uint4 w;
    w.x = pack<E>(v[0], v[1]), w.y = pack<E>(v[2], v[3]), w.z = pack<E>(v[4], v[5]), w.w = pack<E>(v[6], v[7]);
    *reinterpret_cast<uint4*>(at) = w;
  }
}

}  // namespace

namespace {

/// x in dtype, its last dim contiguous and its other strides (of dims larger than 1) and start 16-byte aligned, as
/// load_tile reads it: x itself when it already is.
CudaTensor readable(CudaTensor x, DType dtype) {
  if (x.dtype() != dtype) return to_dtype(x, dtype);  // contiguous, in a fresh (aligned) buffer
  auto aligned = [](const CudaTensor& t) {
    if (reinterpret_cast<uintptr_t>(t.raw()) % 16 != 0 || t.strides()[3] != 1) return false;
    for (size_t d = 0; d < 3; ++d)
      if (t.shape()[d] > 1 && t.strides()[d] * static_cast<int64_t>(dtype_size(t.dtype())) % 16 != 0) return false;
    return true;
  };
  if (aligned(x)) return x;
  if (!x.is_contiguous()) return contiguous(x);  // a fresh buffer, through the gather kernel
  CudaTensor copy(x.shape(), dtype, x.device());  // contiguous at a misaligned offset
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

Problem problem(const CudaTensor& q, const CudaTensor& k, const std::optional<CudaTensor>& mask, double scale,
                bool causal, const AttentionDropout& dropout) {
  const Shape& s = q.shape();
  Shape scores{s[0], s[1], s[2], k.shape()[2]};
  return {static_cast<int64_t>(s[1]), static_cast<int64_t>(s[2]), static_cast<int64_t>(k.shape()[2]),
          static_cast<float>(scale), mask_rows(mask, scores, causal), DropoutMask::of(dropout)};
}

/// Calls f.template operator()<E, D>() for the operands' storage type and head size.
template <class F> void dispatch(DType dtype, size_t d, F&& f) {
  auto sized = [&]<class E>() {
    if (d == 32) return f.template operator()<E, 32>();
    if (d == 64) return f.template operator()<E, 64>();
    if constexpr (kHeadSize<E>(128)) return f.template operator()<E, 128>();
  };
  if (dtype == DType::F32) return sized.template operator()<float>();
  if (dtype == DType::BF16) return sized.template operator()<__nv_bfloat16>();
  sized.template operator()<__half>();
}

/// Launches kernel on `blocks` blocks with `bytes` of dynamic shared memory (raising the kernel's limit past 48 KiB).
template <class K, class... A> void launch(K kernel, int64_t blocks, size_t bytes, int device, A... args) {
  if (blocks > 0x7fffffff)
    throw ShapeError("attention", std::to_string(blocks) + " blocks of 128 rows are more than a grid holds");
  cudaStream_t s = stream(device);  // makes device current: the attribute below is per device
  if (bytes > 48 * 1024)
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "attention");
  kernel<<<static_cast<unsigned>(blocks), kBlockThreads, bytes, s>>>(args...);
  check_launch("attention");
}

int64_t blocks_of(int64_t n) { return (n + kBlockRows - 1) / kBlockRows; }

}  // namespace

bool supports(const CudaTensor& q, const CudaTensor& k, const CudaTensor& v) {
  DType d = q.dtype();
  if ((d != DType::F16 && d != DType::BF16 && d != DType::F32) || k.dtype() != d || v.dtype() != d) return false;
  size_t dk = q.shape()[3];
  bool sized = d == DType::F32 ? kHeadSize<float>(dk) : kHeadSize<__half>(dk);
  return sized && v.shape()[3] == dk && q.shape()[2] > 0 && k.shape()[2] > 0;
}

std::pair<CudaTensor, CudaTensor> forward(const CudaTensor& q_in, const CudaTensor& k_in, const CudaTensor& v_in,
                                          const std::optional<CudaTensor>& mask, double scale, bool causal,
                                          const AttentionDropout& dropout) {
  DType dtype = q_in.dtype();
  CudaTensor q = readable(q_in, dtype), k = readable(k_in, dtype), v = readable(v_in, dtype);
  const Shape& s = q.shape();
  size_t d = s[3];
  CudaTensor out = output_like(q_in, d, dtype), lse(Shape{s[0], s[1], s[2]}, DType::F32, q.device());
  int64_t bh = static_cast<int64_t>(s[0] * s[1]);
  if (bh == 0) return {out, lse};
  Problem p = problem(q, k, mask, scale, causal, dropout);
  dispatch(dtype, d, [&]<class E, int D>() {
    size_t bytes = (kBlockRows + 2 * kPieces<E> * kForwardStages * kTile) * kTilePitch<E, D> * sizeof(E);
    launch(forward_kernel<E, D>, bh * blocks_of(p.seq_q), bytes, q.device().index, operand<const E>(q),
           operand<const E>(k), operand<const E>(v), operand<E>(out), lse.data<float>(), p);
  });
  return {out, lse};
}

AttentionGradients<CudaTensor> backward(const CudaTensor& q_in, const CudaTensor& k_in, const CudaTensor& v_in,
                                        const std::optional<CudaTensor>& mask, double scale, bool causal,
                                        const AttentionDropout& dropout, const CudaTensor& out_in,
                                        const CudaTensor& logsumexp, const CudaTensor& grad_in) {
  DType dtype = q_in.dtype();
  CudaTensor q = readable(q_in, dtype), k = readable(k_in, dtype), v = readable(v_in, dtype);
  CudaTensor out = readable(out_in, dtype), dout = readable(grad_in, dtype);
  CudaTensor lse = to_dtype(logsumexp, DType::F32);  // contiguous
  const Shape& s = q.shape();
  size_t d = s[3];
  int64_t bh = static_cast<int64_t>(s[0] * s[1]), rows = bh * static_cast<int64_t>(s[2]);
  CudaTensor dq = output_like(q_in, d, dtype), dk = output_like(k_in, d, dtype), dv = output_like(v_in, d, dtype);
  if (bh == 0) return {dq, dk, dv};
  int device = q.device().index;
  cudaStream_t st = stream(device);
  CudaTensor delta(Shape{static_cast<size_t>(rows)}, DType::F32, q.device());
  CudaTensor dq32(Shape{static_cast<size_t>(rows), d}, DType::F32, q.device());
  // delta = rowsum(grad ∘ out) from grad as given (f32 under autocast), before any rounding to the inputs' dtype.
  CudaTensor grad = grad_in.dtype() == dtype ? dout : readable(grad_in, DType::F32);
  Problem p = problem(q, k, mask, scale, causal, dropout);
  dispatch(dtype, d, [&]<class E, int D>() {
    auto delta_for = [&]<class G>() {
      delta_kernel<G, E, D><<<blocks_for(rows * (D / 8)), kThreads, 0, st>>>(
          operand<const G>(grad), operand<const E>(out), delta.data<float>(), dq32.data<float>(), rows, p.heads,
          p.seq_q);
    };
    if (grad.dtype() == DType::F32) delta_for.template operator()<float>();
    else delta_for.template operator()<E>();
    check_launch("attention_backward");
    launch(backward_kernel<E, D>, bh * blocks_of(p.seq_k), BackwardTiles<E, D>::bytes(), device, operand<const E>(q),
           operand<const E>(k), operand<const E>(v), operand<const E>(dout), lse.data<float>(), delta.data<float>(),
           dq32.data<float>(), operand<E>(dk), operand<E>(dv), p);
    int64_t groups = rows * D / 8;
    store_query_gradient<E><<<blocks_for(groups), kThreads, 0, st>>>(dq32.data<float>(), operand<E>(dq), groups,
                                                                     p.heads, p.seq_q, D);
    check_launch("attention_backward");
  });
  return {dq, dk, dv};
}

}  // namespace scorch::backends::cuda::kernels::flash
