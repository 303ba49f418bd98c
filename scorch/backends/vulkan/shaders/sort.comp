#version 460
// Sorting along one dim of a contiguous input viewed as [outer, n, inner], n ≤ 2048: one workgroup per lane runs a
// bitonic network in shared memory over (value, index) pairs, so equal values keep their order (as the Cpu
// backend's stable sort) and NaN is the largest value (first when descending). Writes the sorted values and/or their
// i64 source indices. SCORCH_SORT_INT sorts int keys (bool, u8, i8 … i64); else float keys.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int DESCENDING = 0;
layout(constant_id = 2) const int VALUES = 1;   // write values
layout(constant_id = 3) const int INDICES = 1;  // write indices

#ifdef SCORCH_SORT_INT
#define K VI
#define LOAD(i) load_i(pc.x_addr, DT, i)
#define STORE(i, v) store_i(pc.values_addr, DT, i, v)
bool key_less(K a, K b) { return a < b; }
#else
#define K VF
#define LOAD(i) load_f(pc.x_addr, DT, i)
#define STORE(i, v) store_f(pc.values_addr, DT, i, v)
bool key_less(K a, K b) { return a < b || (!isnan(a) && isnan(b)); }
#endif

layout(push_constant) uniform Push {
  uvec2 x_addr;
  uvec2 values_addr;
  uvec2 indices_addr;
  int x_offset;
  int lanes;  // outer · inner
  int n;
  int inner;
  int padded;  // n rounded up to a power of two
} pc;

shared K keys[2048];
shared int order[2048];

// Whether slot i's pair comes before slot j's: by value (the dim's order), then by source index; the padding (index
// n and above) last.
bool before(uint i, uint j) {
  int a = order[i], b = order[j];
  if (a >= pc.n || b >= pc.n) return a < b;
  K x = keys[i], y = keys[j];
  bool less = DESCENDING != 0 ? key_less(y, x) : key_less(x, y);
  bool greater = DESCENDING != 0 ? key_less(x, y) : key_less(y, x);
  return less || (!greater && a < b);
}

void main() {
  uint t = gl_LocalInvocationID.x, half_n = uint(pc.padded) / 2u;
  for (int lane = int(gl_WorkGroupID.x); lane < pc.lanes; lane += int(gl_NumWorkGroups.x)) {
    int base = pc.x_offset + (lane / pc.inner) * pc.n * pc.inner + lane % pc.inner;
    for (int k = int(t); k < pc.padded; k += 256) {
      order[k] = k;
      if (k < pc.n) keys[k] = LOAD(base + k * pc.inner);
    }
    barrier();
    for (uint size = 2u; size <= uint(pc.padded); size <<= 1u)
      for (uint stride = size >> 1u; stride > 0u; stride >>= 1u) {
        for (uint p = t; p < half_n; p += 256u) {
          uint i = (p / stride) * 2u * stride + p % stride, j = i + stride;
          bool ascending = (i & size) == 0u;
          if (before(j, i) == ascending) {
            K key = keys[i];
            keys[i] = keys[j];
            keys[j] = key;
            int at = order[i];
            order[i] = order[j];
            order[j] = at;
          }
        }
        barrier();
      }
    int out_base = base - pc.x_offset;
    for (int k = int(t); k < pc.n; k += 256) {
      if (VALUES != 0) STORE(out_base + k * pc.inner, keys[k]);
      if (INDICES != 0) BufI64Words(pc.indices_addr).v[out_base + k * pc.inner] = ivec2(order[k], 0);
    }
    barrier();
  }
}
