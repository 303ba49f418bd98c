#version 460
// Sorting along one dim of a contiguous input viewed as [outer, n, inner] by a bitonic network over (value, index)
// pairs, so equal values keep their order (as the Cpu backend's stable sort) and NaN is the largest value (first when
// descending). Writes the sorted values and/or their i64 source indices. SCORCH_SORT_INT sorts int keys (bool, u8,
// i8 … i64); else float keys. MODE 0: n ≤ 2048, one workgroup per lane, the whole network in shared memory. Longer
// lanes (padded to a power of two) go through a scratch copy of keys and source indices, [lanes, padded]: MODE 1
// sorts each 2048-block as the network's first stages; then for each stage `size` above 2048, MODE 2 runs one
// compare-exchange step of stride ≥ 2048 across blocks, and MODE 3 a block's steps of stride ≤ 1024 in shared memory
// (writing the outputs after the last stage).
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int DESCENDING = 0;
layout(constant_id = 2) const int VALUES = 1;   // write values
layout(constant_id = 3) const int INDICES = 1;  // write indices
layout(constant_id = 4) const int MODE = 0;
const uint BLOCK = 2048u;

#ifdef SCORCH_SORT_INT
#define K VI
#define LOAD(i) load_i(pc.x_addr, DT, i)
#define STORE(i, v) store_i(pc.values_addr, DT, i, v)
#define LOAD_SCRATCH(i) load_i(pc.keys_addr, DT, i)
#define STORE_SCRATCH(i, v) store_i(pc.keys_addr, DT, i, v)
bool key_less(K a, K b) { return a < b; }
#else
#define K VF
#define LOAD(i) load_f(pc.x_addr, DT, i)
#define STORE(i, v) store_f(pc.values_addr, DT, i, v)
#define LOAD_SCRATCH(i) load_f(pc.keys_addr, DT, i)
#define STORE_SCRATCH(i, v) store_f(pc.keys_addr, DT, i, v)
bool key_less(K a, K b) { return a < b || (!isnan(a) && isnan(b)); }
#endif

layout(push_constant) uniform Push {
  uvec2 x_addr;
  uvec2 values_addr;
  uvec2 indices_addr;
  uvec2 keys_addr;   // the scratch keys (x's dtype) and source indices (i32), [lanes, padded] (MODE 1-3)
  uvec2 order_addr;
  int x_offset;
  int lanes;  // outer · inner
  int n;
  int inner;
  int padded;  // n rounded up to a power of two
  int size;    // the network's stage (MODE 2, 3)
  int stride;  // the compare-exchange distance (MODE 2)
} pc;

shared K keys[2048];
shared int order[2048];

// Whether pair (x, a) comes before (y, b): by value (the dim's order), then by source index; the padding (index n
// and above) last.
bool precedes(K x, int a, K y, int b) {
  if (a >= pc.n || b >= pc.n) return a < b;
  bool less = DESCENDING != 0 ? key_less(y, x) : key_less(x, y);
  bool greater = DESCENDING != 0 ? key_less(x, y) : key_less(y, x);
  return less || (!greater && a < b);
}
bool before(uint i, uint j) { return precedes(keys[i], order[i], keys[j], order[j]); }

// The network's steps from stage first_size, stride first_stride, through stage last_size over the shared slots,
// slot k being the lane's position start + k (which decides each pair's direction).
void network(uint start, uint count, uint first_size, uint first_stride, uint last_size) {
  uint t = gl_LocalInvocationID.x;
  for (uint size = first_size; size <= last_size; size <<= 1u)
    for (uint stride = size == first_size ? first_stride : size >> 1u; stride > 0u; stride >>= 1u) {
      for (uint p = t; p < count / 2u; p += 256u) {
        uint i = (p / stride) * 2u * stride + p % stride, j = i + stride;
        bool ascending = ((start + i) & size) == 0u;
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
}

// Writes a lane's sorted slots [0, count) (positions start + k) to the outputs, those below n.
void write_outputs(int lane, uint start, uint count) {
  int out_base = (lane / pc.inner) * pc.n * pc.inner + lane % pc.inner;
  for (uint k = gl_LocalInvocationID.x; k < count; k += 256u) {
    int at = int(start + k);
    if (at >= pc.n) continue;
    if (VALUES != 0) STORE(out_base + at * pc.inner, keys[k]);
    if (INDICES != 0) BufI64Words(pc.indices_addr).v[out_base + at * pc.inner] = ivec2(order[k], 0);
  }
}

// The lane's positions [start, start + count) from x into the shared slots (source indices; padding past n).
void load_from_x(int lane, uint start, uint count) {
  int base = pc.x_offset + (lane / pc.inner) * pc.n * pc.inner + lane % pc.inner;
  for (uint k = gl_LocalInvocationID.x; k < count; k += 256u) {
    int at = int(start + k);
    order[k] = at;
    if (at < pc.n) keys[k] = LOAD(base + at * pc.inner);
  }
  barrier();
}

void move_scratch(int lane, uint start, bool load) {
  int base = lane * pc.padded + int(start);
  for (uint k = gl_LocalInvocationID.x; k < BLOCK; k += 256u) {
    if (load) {
      keys[k] = LOAD_SCRATCH(base + int(k));
      order[k] = BufI32(pc.order_addr).v[base + int(k)];
    } else {
      STORE_SCRATCH(base + int(k), keys[k]);
      BufI32(pc.order_addr).v[base + int(k)] = order[k];
    }
  }
  barrier();
}

// MODE 2: one compare-exchange step of stride ≥ BLOCK, a pair per invocation.
void global_step() {
  uint half_n = uint(pc.padded) / 2u, stride = uint(pc.stride), size = uint(pc.size);
  int pairs = pc.lanes * int(half_n), step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int p = int(gl_GlobalInvocationID.x); p < pairs; p += step) {
    uint lane = uint(p) / half_n, q = uint(p) % half_n;
    uint i = (q / stride) * 2u * stride + q % stride, j = i + stride;
    int at_i = int(lane) * pc.padded + int(i), at_j = at_i + int(stride);
    K x = LOAD_SCRATCH(at_i), y = LOAD_SCRATCH(at_j);
    int a = BufI32(pc.order_addr).v[at_i], b = BufI32(pc.order_addr).v[at_j];
    if (precedes(y, b, x, a) == ((i & size) == 0u)) {
      STORE_SCRATCH(at_i, y);
      STORE_SCRATCH(at_j, x);
      BufI32(pc.order_addr).v[at_i] = b;
      BufI32(pc.order_addr).v[at_j] = a;
    }
  }
}

void main() {
  if (MODE == 2) {
    global_step();
    return;
  }
  int blocks = MODE == 0 ? pc.lanes : pc.lanes * (pc.padded / int(BLOCK));
  for (int block = int(gl_WorkGroupID.x); block < blocks; block += int(gl_NumWorkGroups.x)) {
    if (MODE == 0) {
      load_from_x(block, 0u, uint(pc.padded));
      network(0u, uint(pc.padded), 2u, 1u, uint(pc.padded));
      write_outputs(block, 0u, uint(pc.padded));
    } else {
      int lane = block / (pc.padded / int(BLOCK));
      uint start = uint(block % (pc.padded / int(BLOCK))) * BLOCK;
      if (MODE == 1) load_from_x(lane, start, BLOCK);
      else move_scratch(lane, start, true);
      if (MODE == 1) network(start, BLOCK, 2u, 1u, BLOCK);
      else network(start, BLOCK, uint(pc.size), BLOCK / 2u, uint(pc.size));
      if (MODE == 3 && pc.size == pc.padded) write_outputs(lane, start, BLOCK);
      else move_scratch(lane, start, false);
    }
    barrier();
  }
}
