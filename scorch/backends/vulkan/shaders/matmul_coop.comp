#version 460
// Batched f16 matmul on tensor cores (GL_NV_cooperative_matrix): C[b] = A[b] · B[b] with f32 accumulation and
// f16 output. (64·WARPS_M)×(64·WARPS_N) output tiles: each subgroup of 32 owns 64×64 outputs as 4×4 16×16
// accumulators. BK-deep slices of A and B move global → registers (16-byte loads, the next slice while the current
// one is multiplied) → shared memory (DOUBLE: two buffers, one barrier per slice). Each operand is read in place,
// row-major or transposed (spec constants A_T, B_T: A contiguous along m, B along k); the host guarantees contiguous
// dims' extents and every offset and stride are multiples of 8 elements (16 bytes), so each 8-element chunk lies
// wholly inside or outside the operand.
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require

// Build-time shape: WARPS_M × WARPS_N subgroups of 64×64 outputs, BK-deep slices, DOUBLE: two shared buffers.
#ifndef WARPS_M
#define WARPS_M 2
#endif
#ifndef WARPS_N
#define WARPS_N 2
#endif
#ifndef BK_SLICE
#define BK_SLICE 32
#endif
#ifndef DOUBLE
#define DOUBLE 1
#endif
const int THREADS = 32 * WARPS_M * WARPS_N;
layout(local_size_x = THREADS) in;
layout(constant_id = 0) const bool A_T = false;  // A's contiguous dim is m (a transposed view), else k
layout(constant_id = 1) const bool B_T = false;  // B's contiguous dim is k (a transposed view), else n

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
  int a_outer;  // A's stride along its non-contiguous dim
  int b_batch;
  int b_outer;
  int c_batch;
} pc;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer BufV4 { uvec4 v[]; };

const int BM = 64 * WARPS_M, BN = 64 * WARPS_N, BK = BK_SLICE, BUFFERS = DOUBLE != 0 ? 2 : 1;
// A slice stored as in memory: BM rows of BK k (row pitch BK/8 + 1 chunks of 8 halves) or BK k of BM rows (pitch
// BM/8 + 1); the extra chunk spreads a subgroup's 16-byte reads over every bank. B likewise.
const int PITCH_K = BK / 8 + 1, PITCH_A = BM / 8 + 1, PITCH_B = BN / 8 + 1;
const int CHUNKS_A = BM * PITCH_K > BK * PITCH_A ? BM * PITCH_K : BK * PITCH_A;
const int CHUNKS_B = BN * PITCH_K > BK * PITCH_B ? BN * PITCH_K : BK * PITCH_B;
const int LOADS_A = BM * BK / 8 / THREADS, LOADS_B = BN * BK / 8 / THREADS;  // chunks per invocation per slice
shared uvec4 tile_a[BUFFERS][CHUNKS_A];
shared uvec4 tile_b[BUFFERS][CHUNKS_B];
shared float stage[WARPS_M * WARPS_N][256];  // one accumulator per subgroup on its way to C

#define F16M fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define F32M fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

// Chunk e of a slice: its (outer, chunk-in-row) position. A row of the slice is BK/8 chunks of k (operand
// contiguous in k) or tile/8 chunks of m or n (contiguous in m or n).
ivec2 chunk_position(int e, bool contiguous_in_k, int tile) {
  return contiguous_in_k ? ivec2(e / (BK / 8), e % (BK / 8)) : ivec2(e / (tile / 8), e % (tile / 8));
}

// Chunk e of the slice at k0 of an operand whose tile (of `tile` rows for A, columns for B) starts at mn0: zero
// outside the operand.
uvec4 load_chunk(uvec2 addr, int base, int outer_stride, bool contiguous_in_k, int tile, int e, int mn0, int k0,
                 int mn_size) {
  ivec2 p = chunk_position(e, contiguous_in_k, tile);
  int mn = contiguous_in_k ? mn0 + p.x : mn0 + p.y * 8;
  int kk = contiguous_in_k ? k0 + p.y * 8 : k0 + p.x;
  if (mn >= mn_size || kk >= pc.k) return uvec4(0);
  int index = contiguous_in_k ? base + mn * outer_stride + kk : base + kk * outer_stride + mn;
  return BufV4(addr).v[index / 8];
}

int chunk_slot(int e, bool contiguous_in_k, int tile) {
  ivec2 p = chunk_position(e, contiguous_in_k, tile);
  return p.x * (contiguous_in_k ? PITCH_K : tile / 8 + 1) + p.y;
}

void load_slice(inout uvec4 next_a[LOADS_A], inout uvec4 next_b[LOADS_B], int row0, int col0, int k0, int a_base,
                int b_base) {
  int tid = int(gl_LocalInvocationID.x);
  [[unroll]] for (int q = 0; q < LOADS_A; ++q)
    next_a[q] = load_chunk(pc.a_addr, a_base, pc.a_outer, !A_T, BM, tid + THREADS * q, row0, k0, pc.m);
  [[unroll]] for (int q = 0; q < LOADS_B; ++q)
    next_b[q] = load_chunk(pc.b_addr, b_base, pc.b_outer, B_T, BN, tid + THREADS * q, col0, k0, pc.n);
}

void store_slice(uvec4 next_a[LOADS_A], uvec4 next_b[LOADS_B], int slot) {
  int tid = int(gl_LocalInvocationID.x);
  [[unroll]] for (int q = 0; q < LOADS_A; ++q) tile_a[slot][chunk_slot(tid + THREADS * q, !A_T, BM)] = next_a[q];
  [[unroll]] for (int q = 0; q < LOADS_B; ++q) tile_b[slot][chunk_slot(tid + THREADS * q, B_T, BN)] = next_b[q];
}

void main() {
  int batch = int(gl_WorkGroupID.z);
  int row0 = int(gl_WorkGroupID.y) * BM, col0 = int(gl_WorkGroupID.x) * BN;
  int warp = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  int wm = (warp / WARPS_N) * 64, wn = (warp % WARPS_N) * 64;
  bool a_k = !A_T, b_k = B_T;  // whether A's and B's slices are rows of k
  int a_base = pc.a_offset + batch * pc.a_batch, b_base = pc.b_offset + batch * pc.b_batch;
  F32M acc[4][4];
  [[unroll]] for (int i = 0; i < 4; ++i)
    [[unroll]] for (int j = 0; j < 4; ++j) acc[i][j] = F32M(0.0);
  uvec4 next_a[LOADS_A], next_b[LOADS_B];
  load_slice(next_a, next_b, row0, col0, 0, a_base, b_base);
  store_slice(next_a, next_b, 0);
  barrier();
  int slices = (pc.k + BK - 1) / BK;
  for (int s = 0; s < slices; ++s) {
    int cur = DOUBLE != 0 ? s & 1 : 0;
    bool more = s + 1 < slices;
    if (more) load_slice(next_a, next_b, row0, col0, (s + 1) * BK, a_base, b_base);
    [[unroll]] for (int kk = 0; kk < BK; kk += 16) {
      F16M fa[4], fb[4];
      [[unroll]] for (int i = 0; i < 4; ++i) {
        int r = wm + 16 * i;
        if (a_k) coopMatLoadNV(fa[i], tile_a[cur], r * PITCH_K + kk / 8, PITCH_K, false);
        else coopMatLoadNV(fa[i], tile_a[cur], kk * PITCH_A + r / 8, PITCH_A, true);
      }
      [[unroll]] for (int j = 0; j < 4; ++j) {
        int c = wn + 16 * j;
        if (b_k) coopMatLoadNV(fb[j], tile_b[cur], c * PITCH_K + kk / 8, PITCH_K, true);
        else coopMatLoadNV(fb[j], tile_b[cur], kk * PITCH_B + c / 8, PITCH_B, false);
      }
      [[unroll]] for (int i = 0; i < 4; ++i)
        [[unroll]] for (int j = 0; j < 4; ++j) acc[i][j] = coopMatMulAddNV(fa[i], fb[j], acc[i][j]);
    }
    if (DOUBLE == 0) barrier();  // every subgroup is done reading the buffer before it is overwritten
    if (more) store_slice(next_a, next_b, DOUBLE != 0 ? cur ^ 1 : 0);
    barrier();
  }
  int c_base = pc.c_offset + batch * pc.c_batch;
  [[unroll]] for (int i = 0; i < 4; ++i)
    [[unroll]] for (int j = 0; j < 4; ++j) {
      coopMatStoreNV(acc[i][j], stage[warp], 0, 16, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      [[unroll]] for (int e = 0; e < 8; ++e) {
        int idx = lane + 32 * e;
        int r = row0 + wm + 16 * i + idx / 16, c = col0 + wn + 16 * j + idx % 16;
        if (r < pc.m && c < pc.n) BufF16(pc.c_addr).v[c_base + r * pc.n + c] = float16_t(stage[warp][idx]);
      }
      subgroupBarrier();
    }
}
