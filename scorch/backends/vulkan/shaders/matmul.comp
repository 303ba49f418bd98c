#version 460
// Batched matmul C[b] = A[b] · B[b] over strided operands (transposed views read in place): (16·TM)×128 output
// tiles, 8-deep slices of A and B staged in shared memory (the next ones loaded into registers meanwhile), TM×8
// outputs per invocation (rows and columns 16 apart, so a subgroup reads consecutive shared words and writes
// consecutive outputs). Split-K: workgroup z covers batches × k slices of k_len; slice s of batch b writes its
// partial product to C's matrix s · batches + b in dtype DT_C (the host sums them). Built once per compute type T:
// float (f32, f16, bf16 loads), double, int and int64_t (SCORCH_MATMUL_INT, SCORCH_WIDE).
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : require

#ifdef SCORCH_MATMUL_INT
#define T VI
#define LOAD(addr, dt, i) load_i(addr, dt, i)
#define STORE(addr, dt, i, v) store_i(addr, dt, i, v)
#else
#define T VF
#define LOAD(addr, dt, i) load_f(addr, dt, i)
#define STORE(addr, dt, i, v) store_f(addr, dt, i, v)
#endif

layout(local_size_x = 16, local_size_y = 16) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int DT_C = -1;  // C's dtype where it differs from the operands' (split-K partials)
#define DT_OUT (DT_C >= 0 ? DT_C : DT)
// Rows per invocation, fixed at build time (SCORCH_MATMUL_TM: 8, or 2 for the short-product variants) so every loop
// over the accumulators unrolls and they stay in registers.
#ifdef SCORCH_MATMUL_TM
const int TM = SCORCH_MATMUL_TM;
#else
const int TM = 8;
#endif

layout(push_constant) uniform Push {
  uvec2 a_addr;
  uvec2 b_addr;
  uvec2 c_addr;
  int a_offset;
  int b_offset;
  int c_offset;
  int m;
  int n;
  int k;
  int a_batch;
  int a_row;
  int a_col;
  int b_batch;
  int b_row;
  int b_col;
  int c_batch;
  int batches;  // batches in this dispatch
  int k_len;    // k per slice (k without split-K)
} pc;

const int BM = 16 * TM, BN = 128, BK = 8, TN = 8;
// A's rows padded by 4 words: the eight k of one row land in eight different banks when stored.
shared T tile_a[BK][BM + 4];
shared T tile_b[BK][BN];

void main() {
  int split = int(gl_WorkGroupID.z) / pc.batches, batch = int(gl_WorkGroupID.z) % pc.batches;
  int k_begin = split * pc.k_len, k_end = min(pc.k, k_begin + pc.k_len);
  int row0 = int(gl_WorkGroupID.y) * BM, col0 = int(gl_WorkGroupID.x) * BN;
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int tid = ty * 16 + tx;
  int a_base = pc.a_offset + batch * pc.a_batch, b_base = pc.b_offset + batch * pc.b_batch;
  T acc[TM][TN];
  [[unroll]] for (int i = 0; i < TM; ++i)
    [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
  // Each invocation's share of the next slices (A's BM×8, B's 8×128; zeros past the edges), loaded into registers
  // while the current slices are multiplied out of shared memory.
  T next_a[4], next_b[4];
  [[unroll]] for (int q = 0; q < 4; ++q) {
    int e = tid + 256 * q;
    int r = row0 + e / BK, c = k_begin + e % BK;
    next_a[q] =
        (e / BK < BM && r < pc.m && c < k_end) ? LOAD(pc.a_addr, DT, a_base + r * pc.a_row + c * pc.a_col) : T(0);
    int rb = k_begin + e / BN, cb = col0 + e % BN;
    next_b[q] = (rb < k_end && cb < pc.n) ? LOAD(pc.b_addr, DT, b_base + rb * pc.b_row + cb * pc.b_col) : T(0);
  }
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    [[unroll]] for (int q = 0; q < 4; ++q) {
      int e = tid + 256 * q;
      if (e / BK < BM) tile_a[e % BK][e / BK] = next_a[q];
      tile_b[e / BN][e % BN] = next_b[q];
    }
    barrier();
    int k1 = k0 + BK;
    if (k1 < k_end) {
      [[unroll]] for (int q = 0; q < 4; ++q) {
        int e = tid + 256 * q;
        int r = row0 + e / BK, c = k1 + e % BK;
        next_a[q] =
            (e / BK < BM && r < pc.m && c < k_end) ? LOAD(pc.a_addr, DT, a_base + r * pc.a_row + c * pc.a_col) : T(0);
        int rb = k1 + e / BN, cb = col0 + e % BN;
        next_b[q] = (rb < k_end && cb < pc.n) ? LOAD(pc.b_addr, DT, b_base + rb * pc.b_row + cb * pc.b_col) : T(0);
      }
    }
    [[unroll]] for (int kk = 0; kk < BK; ++kk) {
      T av[TM], bv[TN];
      [[unroll]] for (int i = 0; i < TM; ++i) av[i] = tile_a[kk][ty + 16 * i];
      [[unroll]] for (int j = 0; j < TN; ++j) bv[j] = tile_b[kk][tx + 16 * j];
      [[unroll]] for (int i = 0; i < TM; ++i)
        [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
  }
  int c_base = pc.c_offset + (split * pc.batches + batch) * pc.c_batch;
  [[unroll]] for (int i = 0; i < TM; ++i) {
    int r = row0 + ty + 16 * i;
    if (r >= pc.m) continue;
    [[unroll]] for (int j = 0; j < TN; ++j) {
      int c = col0 + tx + 16 * j;
      if (c < pc.n) STORE(pc.c_addr, DT_OUT, c_base + r * pc.n + c, acc[i][j]);
    }
  }
}
