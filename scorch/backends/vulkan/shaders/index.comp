#version 460
// Index reads: MODE 0 (gather along dim): out[i] = x at i's coordinates with the dim's replaced by indices[i];
// MODE 1 (select along dim): out[o, j, r] = x[o, indices[j], r] over x viewed as [outer, n, inner]. Indices are i64
// (read as their low words: the caller checked every one against the dim), negative ones counting from the end.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int MODE = 0;

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer IndexParams {
  uvec2 x_addr;
  uvec2 index_addr;
  uvec2 out_addr;
  int total;
  int rank;
  int dim;
  int n;       // the dim's size in x
  int inner;   // elements after the dim (select)
  int count;   // indices (select)
  int out_shape[MAX_RANK];
  int x_strides[MAX_RANK];  // x's contiguous strides (gather)
};
layout(push_constant) uniform Push { uvec2 params; } pc;

int index_at(IndexParams p, int i) {
  int v = BufI32(p.index_addr).v[2 * i];
  return v < 0 ? v + p.n : v;
}

void main() {
  IndexParams p = IndexParams(pc.params);
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < p.total; i += step) {
    int src;
    if (MODE == 0) {
      int rest = i;
      src = 0;
      for (int d = p.rank - 1; d >= 0; --d) {
        int coord = rest % p.out_shape[d];
        rest /= p.out_shape[d];
        src += (d == p.dim ? index_at(p, i) : coord) * p.x_strides[d];
      }
    } else {
      int r = i % p.inner, rest = i / p.inner;
      int j = rest % p.count, o = rest / p.count;
      src = (o * p.n + index_at(p, j)) * p.inner + r;
    }
    if (is_float_dtype(DT)) store_f(p.out_addr, DT, i, load_f(p.x_addr, DT, src));
    else store_i(p.out_addr, DT, i, load_i(p.x_addr, DT, src));
  }
}
