#pragma once
// Warp-level tensor-core tiles for the flash attention kernels (nvcc, sm_80+): mma.sync m16n8k16 with f16/bf16
// operands and f32 accumulators, operand fragments loaded from shared memory tiles of 16-bit elements.
// Fragment layout (PTX ISA, "mma.m16n8k16"), with g = lane / 4 and t = lane % 4:
//   A (16×16): a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..], a[2] = A[g][2t+8..], a[3] = A[g+8][2t+8..]
//   B (16×8):  b[0] = B[2t..2t+1][g], b[1] = B[2t+8..2t+9][g]
//   C (16×8):  c[0..1] = C[g][2t..2t+1], c[2..3] = C[g+8][2t..2t+1]
// so the accumulators of two adjacent 8-column tiles are, rounded, the A fragment of the next product.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace scorch::backends::cuda::kernels::flash {

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

template <class E> __device__ __forceinline__ uint32_t word(const E* p) {
  return *reinterpret_cast<const uint32_t*>(p);
}
__device__ __forceinline__ int lane_id() { return threadIdx.x % 32; }

/// A[r][k] = x[r0 + r][k0 + k]: a row-major 16×16 A fragment of the tile x (pitch elements per row).
template <class E> __device__ __forceinline__ void frag_a(uint32_t (&a)[4], const E* x, int pitch, int r0, int k0) {
  int g = lane_id() / 4, t = lane_id() % 4;
  const E* p = x + (r0 + g) * pitch + k0 + 2 * t;
  a[0] = word(p), a[1] = word(p + 8 * pitch), a[2] = word(p + 8), a[3] = word(p + 8 * pitch + 8);
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

/// The A fragment of the 16-column chunk kk of accumulators c[8 columns][4] (columns 16kk .. 16kk+15), rounded to E.
template <class E, int N> __device__ __forceinline__ void accumulators_as_a(uint32_t (&a)[4], const float (&c)[N][4],
                                                                            int kk) {
  a[0] = pack<E>(c[2 * kk][0], c[2 * kk][1]);
  a[1] = pack<E>(c[2 * kk][2], c[2 * kk][3]);
  a[2] = pack<E>(c[2 * kk + 1][0], c[2 * kk + 1][1]);
  a[3] = pack<E>(c[2 * kk + 1][2], c[2 * kk + 1][3]);
}

/// acc[n] += A·B for the n-tiles of a 16 × (8·N) product, A from registers and B[k][n] = x[k0 + k][n], k over the
/// 16-row chunk k0 of tile x.
template <class E, int N> __device__ __forceinline__ void mma_rows_b_t(float (&acc)[N][4], const uint32_t (&a)[4],
                                                                       const E* x, int pitch, int k0) {
#pragma unroll
  for (int n = 0; n < N; n += 2) {
    uint32_t b[4];
    frag_b_t2(b, x, pitch, 8 * n, k0);
    mma<E>(acc[n], a, b[0], b[1]);
    mma<E>(acc[n + 1], a, b[2], b[3]);
  }
}

/// acc[j] += A·B over the D columns of the row tile a_rows (rows r0 .. r0+15) and B[k][n] = b_rows[8j + n][k]:
/// a 16 × 64 product of two row-major tiles (as q·kᵀ).
template <class E, int D> __device__ __forceinline__ void mma_rows_rows(float (&acc)[8][4], const E* a_rows, int r0,
                                                                        const E* b_rows, int pitch) {
#pragma unroll
  for (int kc = 0; kc < D / 16; ++kc) {
    uint32_t a[4];
    frag_a(a, a_rows, pitch, r0, 16 * kc);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      uint32_t b[2];
      frag_b(b, b_rows, pitch, 8 * j, 16 * kc);
      mma<E>(acc[j], a, b[0], b[1]);
    }
  }
}

}  // namespace scorch::backends::cuda::kernels::flash
