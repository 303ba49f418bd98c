#version 460
// Cumulative sum, product, min and max along one dim of a contiguous input viewed as [outer, n, inner]: one
// invocation per (outer, inner) lane walks the dim in order, accumulating as the Cpu backend's scan_dim does (double
// or int64 in the wide variant; each prefix stored rounded to the dtype; min and max keep a NaN once met).
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int OP = 0;  // 0 sum, 1 product, 2 min, 3 max
layout(constant_id = 2) const int FLOAT_KIND = 1;

layout(push_constant) uniform Push {
  uvec2 x_addr;
  uvec2 out_addr;
  int x_offset;
  int lanes;
  int n;
  int inner;
} pc;

VF step_f(VF acc, VF v) {
  if (OP == 0) return acc + v;
  if (OP == 1) return acc * v;
  // NaN spelled out: a compiler may turn the compare-and-select into min/max, which drop a NaN.
  if (isnan(acc)) return acc;
  if (isnan(v)) return v;
  return OP == 2 ? (acc < v ? acc : v) : (acc > v ? acc : v);
}
VI step_i(VI acc, VI v) {
  if (OP == 0) return acc + v;
  if (OP == 1) return acc * v;
  return OP == 2 ? min(acc, v) : max(acc, v);
}

void main() {
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int lane = int(gl_GlobalInvocationID.x); lane < pc.lanes; lane += step) {
    int base = (lane / pc.inner) * pc.n * pc.inner + lane % pc.inner;
    VF acc_f = VF(0);
    VI acc_i = VI(0);
    for (int k = 0; k < pc.n; ++k) {
      int at = base + k * pc.inner;
      if (FLOAT_KIND != 0) {
        VF v = load_f(pc.x_addr, DT, pc.x_offset + at);
        acc_f = k == 0 ? v : step_f(acc_f, v);
        store_f(pc.out_addr, DT, at, acc_f);
      } else {
        VI v = load_i(pc.x_addr, DT, pc.x_offset + at);
        acc_i = k == 0 ? v : step_i(acc_i, v);
        store_i(pc.out_addr, DT, at, acc_i);
      }
    }
  }
}
