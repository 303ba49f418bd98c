#version 460
// Batched matmul C[b] = A[b] · B[b] over strided operands (transposed views read in place): (16·TM)×128 output
// tiles, BK-deep slices of A and B staged in shared memory (the next ones loaded into registers meanwhile), TM×8
// outputs per invocation (rows and columns 16 apart; or, SCORCH_MATMUL_V4, two runs of 4 read as vec4: the f32
// build, with BK 16, 3.79 ms for 4096^3 on an H200 against 4.09 ms with scalar reads and BK 8). Split-K:
// workgroup z covers batches × k slices of k_len; slice s of batch b writes its
// partial product to C's matrix s · batches + b in dtype DT_C (the host sums them). Built once per compute type T:
// float (f32, f16, bf16 loads), double, int and int64_t (SCORCH_MATMUL_INT, SCORCH_WIDE). SCORCH_MATMUL_IM2COL: the
// implicit-GEMM convolution, B being the im2col matrix of the input read in place through the window geometry of a
// parameter block (no column buffer).
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

#ifdef SCORCH_MATMUL_IM2COL
// IM2COL_T: B is the column matrix transposed ([l, c·k]: the weight gradient), else [c·k, l] (the forward pass).
layout(constant_id = 2) const int IM2COL_T = 0;
// The convolution's geometry (window.comp's, 1d and 2d padded with unit dims); batch z is sample z / groups, group
// z % groups; the input is [samples, groups · channels, spatial].
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer ConvParams {
  int groups;
  int channels;  // per group
  int k_count;   // taps per window
  int a_groups;  // A's batch is z % a_groups (the weights, shared by the samples), or z where 0
  int in_size[3];
  int out_size[3];
  int kernel[3];
  int stride[3];
  int padding[3];
  int dilation[3];
};
#endif

layout(push_constant) uniform Push {
#ifdef SCORCH_MATMUL_IM2COL
  uvec2 params;  // ConvParams (patched in by the context, which puts a parameter block's address first)
#endif
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

#ifdef SCORCH_MATMUL_BK
const int BK = SCORCH_MATMUL_BK;
#else
const int BK = 8;
#endif
const int BM = 16 * TM, BN = 128, TN = 8;
const int LOADS = BN * BK / 256;  // elements of B's slice (and at most of A's) each invocation stages
// A's rows padded by 4 words: the k of one row land in different banks when stored.
shared T tile_a[BK][BM + 4];
shared T tile_b[BK][BN];
#ifdef SCORCH_MATMUL_V4
// Each invocation's 8 rows (and columns) are two runs of 4 (4·t and 64 + 4·t): consecutive, 16-byte aligned shared
// words the compiler can read as two vec4 per operand and k, instead of eight scalars.
int row_of(int t, int i) { return i < 4 ? 4 * t + i : 64 + 4 * t + i - 4; }
#else
// Rows (and columns) 16 apart: a subgroup reads consecutive shared words and writes consecutive outputs.
int row_of(int t, int i) { return t + 16 * i; }
#endif
void put_a(int k, int r, T v) { tile_a[k][r] = v; }
void put_b(int k, int c, T v) { tile_b[k][c] = v; }
void get_a(int k, int t, out T v[TM]) { [[unroll]] for (int i = 0; i < TM; ++i) v[i] = tile_a[k][row_of(t, i)]; }
void get_b(int k, int t, out T v[TN]) { [[unroll]] for (int j = 0; j < TN; ++j) v[j] = tile_b[k][row_of(t, j)]; }

T load_a(int a_base, int r, int c) { return LOAD(pc.a_addr, DT, a_base + r * pc.a_row + c * pc.a_col); }

#ifdef SCORCH_MATMUL_IM2COL
// The geometry in registers, read once from the parameter block (host memory) at the start.
struct Geometry {
  int k_count, k12, out12, in_count, x_base;  // x_base: this batch's first input plane
  int in_size[3], out_size[3], kernel[3], stride[3], padding[3], dilation[3];
};
Geometry g;

void read_geometry(int batch) {
  ConvParams p = ConvParams(pc.params);
  g.k_count = p.k_count;
  g.in_size = p.in_size;
  g.out_size = p.out_size;
  g.kernel = p.kernel;
  g.stride = p.stride;
  g.padding = p.padding;
  g.dilation = p.dilation;
  g.k12 = g.kernel[1] * g.kernel[2];
  g.out12 = g.out_size[1] * g.out_size[2];
  g.in_count = g.in_size[0] * g.in_size[1] * g.in_size[2];
  g.x_base = pc.b_offset + batch * p.channels * g.in_count;  // sample batch / groups, its group's channels
}
#endif

// B at row rb, column cb of batch's matrix (inside it).
T load_b(int b_base, int batch, int rb, int cb) {
#ifdef SCORCH_MATMUL_IM2COL
  int tap_row = IM2COL_T != 0 ? cb : rb, l = IM2COL_T != 0 ? rb : cb;  // (channel, tap) and output position
  int c = tap_row / g.k_count, k = tap_row % g.k_count;
  int o[3] = int[3](l / g.out12, (l / g.out_size[2]) % g.out_size[1], l % g.out_size[2]);
  int kk[3] = int[3](k / g.k12, (k / g.kernel[2]) % g.kernel[1], k % g.kernel[2]);
  int at = 0;
  bool inside = true;
  [[unroll]] for (int d = 0; d < 3; ++d) {
    int pos = o[d] * g.stride[d] - g.padding[d] + kk[d] * g.dilation[d];
    inside = inside && pos >= 0 && pos < g.in_size[d];
    at = at * g.in_size[d] + pos;
  }
  return inside ? LOAD(pc.b_addr, DT, g.x_base + c * g.in_count + at) : T(0);
#else
  return LOAD(pc.b_addr, DT, b_base + rb * pc.b_row + cb * pc.b_col);
#endif
}

void main() {
  int split = int(gl_WorkGroupID.z) / pc.batches, batch = int(gl_WorkGroupID.z) % pc.batches;
  int k_begin = split * pc.k_len, k_end = min(pc.k, k_begin + pc.k_len);
  int row0 = int(gl_WorkGroupID.y) * BM, col0 = int(gl_WorkGroupID.x) * BN;
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int tid = ty * 16 + tx;
#ifdef SCORCH_MATMUL_IM2COL
  read_geometry(batch);
  int a_groups = ConvParams(pc.params).a_groups;
  int a_base = pc.a_offset + (a_groups > 0 ? batch % a_groups : batch) * pc.a_batch, b_base = 0;
#else
  int a_base = pc.a_offset + batch * pc.a_batch, b_base = pc.b_offset + batch * pc.b_batch;
#endif
  T acc[TM][TN];
  [[unroll]] for (int i = 0; i < TM; ++i)
    [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
  // Each invocation's share of the next slices (A's BM×BK, B's BK×128; zeros past the edges), loaded into registers
  // while the current slices are multiplied out of shared memory.
  T next_a[LOADS], next_b[LOADS];
  [[unroll]] for (int q = 0; q < LOADS; ++q) {
    int e = tid + 256 * q;
    int r = row0 + e / BK, c = k_begin + e % BK;
    next_a[q] = (e / BK < BM && r < pc.m && c < k_end) ? load_a(a_base, r, c) : T(0);
    int rb = k_begin + e / BN, cb = col0 + e % BN;
    next_b[q] = (rb < k_end && cb < pc.n) ? load_b(b_base, batch, rb, cb) : T(0);
  }
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    [[unroll]] for (int q = 0; q < LOADS; ++q) {
      int e = tid + 256 * q;
      if (e / BK < BM) put_a(e % BK, e / BK, next_a[q]);
      put_b(e / BN, e % BN, next_b[q]);
    }
    barrier();
    int k1 = k0 + BK;
    if (k1 < k_end) {
      [[unroll]] for (int q = 0; q < LOADS; ++q) {
        int e = tid + 256 * q;
        int r = row0 + e / BK, c = k1 + e % BK;
        next_a[q] = (e / BK < BM && r < pc.m && c < k_end) ? load_a(a_base, r, c) : T(0);
        int rb = k1 + e / BN, cb = col0 + e % BN;
        next_b[q] = (rb < k_end && cb < pc.n) ? load_b(b_base, batch, rb, cb) : T(0);
      }
    }
    [[unroll]] for (int kk = 0; kk < BK; ++kk) {
      T av[TM], bv[TN];
      get_a(kk, ty, av);
      get_b(kk, tx, bv);
      [[unroll]] for (int i = 0; i < TM; ++i)
        [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
  }
  int c_base = pc.c_offset + (split * pc.batches + batch) * pc.c_batch;
  [[unroll]] for (int i = 0; i < TM; ++i) {
    int r = row0 + row_of(ty, i);
    if (r >= pc.m) continue;
    [[unroll]] for (int j = 0; j < TN; ++j) {
      int c = col0 + row_of(tx, j);
      if (c < pc.n) STORE(pc.c_addr, DT_OUT, c_base + r * pc.n + c, acc[i][j]);
    }
  }
}
