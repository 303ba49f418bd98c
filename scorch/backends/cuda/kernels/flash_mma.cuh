#pragma once
// Warp-level tensor-core tiles for the flash attention kernels (nvcc, sm_90: f32's tiles need its shared memory):
// mma.sync m16n8k16 with f16/bf16 operands and f32 accumulators, operand fragments loaded from shared memory tiles
// of 16-bit elements; f32 operands in 3xTF32 (below).
// Fragment layout (PTX ISA, "mma.m16n8k16"), with g = lane / 4 and t = lane % 4:
//   A (16×16): a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..], a[2] = A[g][2t+8..], a[3] = A[g+8][2t+8..]
//   B (16×8):  b[0] = B[2t..2t+1][g], b[1] = B[2t+8..2t+9][g]
//   C (16×8):  c[0..1] = C[g][2t..2t+1], c[2..3] = C[g+8][2t..2t+1]
// so the accumulators of two adjacent 8-column tiles are, rounded, the A fragment of the next product.
// f32 runs each 16-wide k chunk as two mma.sync m16n8k8 TF32 halves, each of them three times: x = big + small
// (big = tf32(x), small = tf32(x - big)), a·b ≈ a_small·b_big + a_big·b_small + a_big·b_big, which keeps f32's
// accuracy (a_small·b_small is below f32's rounding). The m16n8k8 layout is a[0] = A[g][t], a[1] = A[g+8][t],
// a[2] = A[g][t+4], a[3] = A[g+8][t+4]; b[0] = B[t][g], b[1] = B[t+4][g]. Products of two row-major tiles
// (mma_rows_rows) read it as is. Products whose A is accumulators (mma_rows_b_t) pair k: logical t and t + 4 are
// columns 2t and 2t + 1, for A and B alike (a sum over k does not depend on its order), so that c[0..1] =
// C[g][2t..2t+1] are the A fragment without moving between threads; frag_a_paired reads a tile that way. f32 tiles
// are D + 4 floats apart, so that each of these reads is free of bank conflicts.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace scorch::backends::cuda::kernels::flash {

/// The A fragment of a 16 × 16 chunk: four packed pairs for 16-bit E.
template <class E> struct FragA {
  uint32_t r[4];
};
/// For f32: the two 16 × 8 halves' fragments, as their TF32 big and small pieces.
template <> struct FragA<float> {
  uint32_t big[2][4], small[2][4];
};

/// c += a·b on tensor cores for E = __half or __nv_bfloat16.
template <class E> __device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                                       uint32_t b1) {
  if constexpr (std::is_same_v<E, __nv_bfloat16>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Two floats rounded to E and packed low-first, as a fragment register holds them.
template <class E> __device__ __forceinline__ uint32_t pack(float lo, float hi) {
  if constexpr (std::is_same_v<E, __nv_bfloat16>) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  } else {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
}

/// x rounded to TF32 (cvt.rna: nearest, ties away from zero), its 13 low bits cleared.
__device__ __forceinline__ uint32_t tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r & 0xffffe000u;
}
/// x = big + small in TF32 pieces. A finite x whose rounding would overflow is truncated instead. A non-finite x
/// is all small (big 0): only a correction product sees it, against the other operand's big piece, so a product
/// with a finite value is ±inf (or NaN for 0·inf) as in f32; two infinite operands give NaN where f32 gives ±inf.
__device__ __forceinline__ void split(float x, uint32_t& big, uint32_t& small) {
  uint32_t rounded = tf32(x);
  if (fabsf(__uint_as_float(rounded)) == INFINITY && fabsf(x) < INFINITY) rounded = __float_as_uint(x) & 0xffffe000u;
  float rest = x - __uint_as_float(rounded);
  bool finite = fabsf(rest) < INFINITY;  // false exactly for a non-finite x
  big = finite ? rounded : 0u;
  small = tf32(finite ? rest : x);
}
/// Not volatile: products into different accumulators may interleave, so none waits on the one before it.
__device__ __forceinline__ void mma_tf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
/// acc[n0 + u] += A·B_u for u < G, half h of an f32 A fragment and B_u's fragment in pieces (big[u], small[u]), in
/// 3xTF32: the corrections first, then big·big (the largest term last loses the least to the tensor cores'
/// accumulation), each piece's G products in a row, so that no product waits on the one before it.
template <int G, int N>
__device__ __forceinline__ void mma_3xtf32(float (&acc)[N][4], int n0, const FragA<float>& a, int h,
                                           const uint32_t (&big)[G][2], const uint32_t (&small)[G][2]) {
#pragma unroll
  for (int u = 0; u < G; ++u) mma_tf32(acc[n0 + u], a.small[h], big[u][0], big[u][1]);
#pragma unroll
  for (int u = 0; u < G; ++u) mma_tf32(acc[n0 + u], a.big[h], small[u][0], small[u][1]);
#pragma unroll
  for (int u = 0; u < G; ++u) mma_tf32(acc[n0 + u], a.big[h], big[u][0], big[u][1]);
}

/// An f32 tile split once into TF32 pieces (split_tile), read by every warp without splitting again: element i's
/// big piece at big[i], its small one at small[i].
struct Tf32Tile {
  const uint32_t* big;
  const uint32_t* small;
};
/// The pieces of a B fragment's two values at offsets o0 and o1 of tile x: split here from f32, or read pre-split.
__device__ __forceinline__ void b_pieces(const float* x, int o0, int o1, uint32_t (&big)[2], uint32_t (&small)[2]) {
  split(x[o0], big[0], small[0]), split(x[o1], big[1], small[1]);
}
__device__ __forceinline__ void b_pieces(const Tf32Tile& x, int o0, int o1, uint32_t (&big)[2],
                                         uint32_t (&small)[2]) {
  big[0] = x.big[o0], big[1] = x.big[o1], small[0] = x.small[o0], small[1] = x.small[o1];
}

/// Sets half h of an f32 A fragment from A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4] (logical k; see above).
__device__ __forceinline__ void set_half(FragA<float>& a, int h, float v0, float v1, float v2, float v3) {
  split(v0, a.big[h][0], a.small[h][0]), split(v1, a.big[h][1], a.small[h][1]);
  split(v2, a.big[h][2], a.small[h][2]), split(v3, a.big[h][3], a.small[h][3]);
}

/// The values (lo, hi) at `at`, rounded to E: one 4-byte store for 16-bit E, 8 bytes for f32.
template <class E> __device__ __forceinline__ void store_pair(E* at, float lo, float hi) {
  if constexpr (std::is_same_v<E, float>) *reinterpret_cast<float2*>(at) = make_float2(lo, hi);
  else *reinterpret_cast<uint32_t*>(at) = pack<E>(lo, hi);
}

template <class E> __device__ __forceinline__ uint32_t word(const E* p) {
  return *reinterpret_cast<const uint32_t*>(p);
}
__device__ __forceinline__ int lane_id() { return threadIdx.x % 32; }

/// A[r][k] = x[r0 + r][k0 + k]: a row-major 16×16 A fragment of the tile x (pitch elements per row).
template <class E> __device__ __forceinline__ void frag_a(FragA<E>& a, const E* x, int pitch, int r0, int k0) {
  int g = lane_id() / 4, t = lane_id() % 4;
  if constexpr (std::is_same_v<E, float>) {
    const float* p = x + (r0 + g) * pitch + k0 + t;
#pragma unroll
    for (int h = 0; h < 2; ++h)
      set_half(a, h, p[8 * h], p[8 * pitch + 8 * h], p[8 * h + 4], p[8 * pitch + 8 * h + 4]);
  } else {
    const E* p = x + (r0 + g) * pitch + k0 + 2 * t;
    a.r[0] = word(p), a.r[1] = word(p + 8 * pitch), a.r[2] = word(p + 8), a.r[3] = word(p + 8 * pitch + 8);
  }
}
/// frag_a of a pre-split f32 tile: its pieces read, not split.
__device__ __forceinline__ void frag_a(FragA<float>& a, const Tf32Tile& x, int pitch, int r0, int k0) {
  int g = lane_id() / 4, t = lane_id() % 4, at = (r0 + g) * pitch + k0 + t;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    int offsets[4] = {at + 8 * h, at + 8 * pitch + 8 * h, at + 8 * h + 4, at + 8 * pitch + 8 * h + 4};
#pragma unroll
    for (int i = 0; i < 4; ++i) a.big[h][i] = x.big[offsets[i]], a.small[h][i] = x.small[offsets[i]];
  }
}
/// frag_a for mma_rows_b_t: for f32 with k paired (logical t, t + 4 at columns 2t, 2t + 1; a conflict-free read
/// where pitch is 8 past a multiple of 32).
template <class E> __device__ __forceinline__ void frag_a_paired(FragA<E>& a, const E* x, int pitch, int r0,
                                                                 int k0) {
  if constexpr (std::is_same_v<E, float>) {
    int g = lane_id() / 4, t = lane_id() % 4;
    const float* p = x + (r0 + g) * pitch + k0 + 2 * t;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float2 top = *reinterpret_cast<const float2*>(p + 8 * h);
      float2 bottom = *reinterpret_cast<const float2*>(p + 8 * pitch + 8 * h);
      set_half(a, h, top.x, bottom.x, top.y, bottom.y);
    }
  } else {
    frag_a(a, x, pitch, r0, k0);
  }
}

/// B[k][n] = x[n0 + n][k0 + k]: a 16×8 B fragment from a tile whose rows are B's columns.
template <class E> __device__ __forceinline__ void frag_b(uint32_t (&b)[2], const E* x, int pitch, int n0, int k0) {
  int g = lane_id() / 4, t = lane_id() % 4;
  const E* p = x + (n0 + g) * pitch + k0 + 2 * t;
  b[0] = word(p), b[1] = word(p + 8);
}

/// B[k][n] = x[k0 + k][n0 + n] for the two 16×8 tiles at n0 (b[0..1]) and n0 + 8 (b[2..3]), from a tile whose
/// rows are B's rows: one ldmatrix.trans of four 8×8 matrices (rows 16-byte aligned).
template <class E> __device__ __forceinline__ void frag_b_t2(uint32_t (&b)[4], const E* x, int pitch, int n0,
                                                             int k0) {
  int l = lane_id();
  const E* p = x + (k0 + (l & 15)) * pitch + n0 + (l >> 4) * 8;
  auto address = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
               : "r"(address));
}

/// The A fragment of accumulator tiles lo and hi (columns 16kk .. 16kk+7 and 16kk+8 .. 16kk+15 of a row tile),
/// rounded to E.
template <class E> __device__ __forceinline__ void as_a(FragA<E>& a, const float (&lo)[4], const float (&hi)[4]) {
  if constexpr (std::is_same_v<E, float>) {
    set_half(a, 0, lo[0], lo[2], lo[1], lo[3]);
    set_half(a, 1, hi[0], hi[2], hi[1], hi[3]);
  } else {
    a.r[0] = pack<E>(lo[0], lo[1]), a.r[1] = pack<E>(lo[2], lo[3]);
    a.r[2] = pack<E>(hi[0], hi[1]), a.r[3] = pack<E>(hi[2], hi[3]);
  }
}
/// The A fragment of the 16-column chunk kk of accumulators c[8 columns][4] (columns 16kk .. 16kk+15), rounded to E.
template <class E, int N> __device__ __forceinline__ void accumulators_as_a(FragA<E>& a, const float (&c)[N][4],
                                                                            int kk) {
  as_a<E>(a, c[2 * kk], c[2 * kk + 1]);
}

/// acc[n] += A·B for the n-tiles of a 16 × (8·N) product, A from registers and B[k][n] = x[k0 + k][n], k over the
/// 16-row chunk k0 of tile x (for f32, raw or a Tf32Tile).
template <class E, int N, class X>
__device__ __forceinline__ void mma_rows_b_t(float (&acc)[N][4], const FragA<E>& a, const X& x, int pitch, int k0) {
  if constexpr (std::is_same_v<E, float>) {
    constexpr int G = N < 4 ? N : 4;
    int g = lane_id() / 4, t = lane_id() % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int n0 = 0; n0 < N; n0 += G) {
        int at = (k0 + 8 * h + 2 * t) * pitch + n0 * 8 + g;
        uint32_t big[G][2], small[G][2];
#pragma unroll
        for (int u = 0; u < G; ++u) b_pieces(x, at + 8 * u, at + pitch + 8 * u, big[u], small[u]);
        mma_3xtf32<G>(acc, n0, a, h, big, small);
      }
  } else {
#pragma unroll
    for (int n = 0; n < N; n += 2) {
      uint32_t b[4];
      frag_b_t2(b, x, pitch, 8 * n, k0);
      mma<E>(acc[n], a.r, b[0], b[1]);
      mma<E>(acc[n + 1], a.r, b[2], b[3]);
    }
  }
}

/// acc[j] += A·B over the D columns of the row tile a_rows (rows r0 .. r0+15) and B[k][n] = b_rows[8j + n][k]:
/// a 16 × 64 product of two row-major tiles (as q·kᵀ; for f32, each raw or a Tf32Tile).
template <class E, int D, class XA, class X>
__device__ __forceinline__ void mma_rows_rows(float (&acc)[8][4], const XA& a_rows, int r0, const X& b_rows,
                                              int pitch) {
#pragma unroll
  for (int kc = 0; kc < D / 16; ++kc) {
    FragA<E> a;
    frag_a(a, a_rows, pitch, r0, 16 * kc);
    if constexpr (std::is_same_v<E, float>) {
      int g = lane_id() / 4, t = lane_id() % 4;
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int j0 = 0; j0 < 8; j0 += 4) {
          uint32_t big[4][2], small[4][2];
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            int at = (8 * (j0 + u) + g) * pitch + 16 * kc + 8 * h + t;
            b_pieces(b_rows, at, at + 4, big[u], small[u]);
          }
          mma_3xtf32<4>(acc, j0, a, h, big, small);
        }
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        uint32_t b[2];
        frag_b(b, b_rows, pitch, 8 * j, 16 * kc);
        mma<E>(acc[j], a.r, b[0], b[1]);
      }
    }
  }
}

}  // namespace scorch::backends::cuda::kernels::flash
