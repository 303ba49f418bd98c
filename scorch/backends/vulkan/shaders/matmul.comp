#version 460
// Batched matmul C[b] = A[b] · B[b] over strided operands (transposed views read in place): 64×64 output tiles,
// 16-deep slices of A and B staged in shared memory, 4×4 outputs per invocation. Built once per compute type T:
// float (f32, f16, bf16 loads), double, int and int64_t (SCORCH_MATMUL_INT, SCORCH_WIDE).
#include "common.glsl"

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
} pc;

const int BM = 64, BN = 64, BK = 16;
shared T tile_a[BK][BM + 1];
shared T tile_b[BK][BN + 1];

void main() {
  int batch = int(gl_WorkGroupID.z);
  int row0 = int(gl_WorkGroupID.y) * BM, col0 = int(gl_WorkGroupID.x) * BN;
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int tid = ty * 16 + tx;
  int a_base = pc.a_offset + batch * pc.a_batch, b_base = pc.b_offset + batch * pc.b_batch;
  T acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = T(0);
  for (int k0 = 0; k0 < pc.k; k0 += BK) {
    for (int e = tid; e < BM * BK; e += 256) {
      int kk = e % BK, mm = e / BK;
      int r = row0 + mm, c = k0 + kk;
      tile_a[kk][mm] = (r < pc.m && c < pc.k) ? LOAD(pc.a_addr, DT, a_base + r * pc.a_row + c * pc.a_col) : T(0);
    }
    for (int e = tid; e < BN * BK; e += 256) {
      int nn = e % BN, kk = e / BN;
      int r = k0 + kk, c = col0 + nn;
      tile_b[kk][nn] = (r < pc.k && c < pc.n) ? LOAD(pc.b_addr, DT, b_base + r * pc.b_row + c * pc.b_col) : T(0);
    }
    barrier();
    for (int kk = 0; kk < BK; ++kk) {
      T av[4], bv[4];
      for (int i = 0; i < 4; ++i) av[i] = tile_a[kk][ty + 16 * i];
      for (int j = 0; j < 4; ++j) bv[j] = tile_b[kk][tx + 16 * j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
  }
  int c_base = pc.c_offset + batch * pc.c_batch;
  for (int i = 0; i < 4; ++i) {
    int r = row0 + ty + 16 * i;
    if (r >= pc.m) continue;
    for (int j = 0; j < 4; ++j) {
      int c = col0 + tx + 16 * j;
      if (c < pc.n) STORE(pc.c_addr, DT, c_base + r * pc.n + c, acc[i][j]);
    }
  }
}
