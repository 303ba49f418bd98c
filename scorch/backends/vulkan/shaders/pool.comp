#version 460
// Pooling over [planes, depth, height, width] (1d and 2d padded with unit dims), with PyTorch's window rules as the
// Cpu backend's kernels/pool.cpp applies them (the output sizes, ceil_mode's included, come from the host):
// MODE 0 avg_pool: the sum of the window's cells inside the input over the divisor (count_include_pad: the window's
// cells clipped to input + padding; else those inside the input); MODE 1 its input gradient, each position
// gathering grad / divisor from the windows that cover it, in output order; MODE 2 max_pool (dilated windows) and
// MODE 3 adaptive max pooling: the window's max and its index in the plane (i64), a later NaN winning over anything.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int MODE = 0;

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer PoolParams {
  uvec2 src_addr;    // x, or grad (MODE 1)
  uvec2 dst_addr;    // the pooled values, or the input gradient (MODE 1)
  uvec2 index_addr;  // max pooling's indices (MODE 2, 3)
  int total;         // invocations' elements: outputs, or inputs (MODE 1)
  int include_pad;
  int pad0, pad1;
  int in_size[3];
  int out_size[3];
  int kernel[3];
  int stride[3];
  int padding[3];
  int dilation[3];
};
layout(push_constant) uniform Push { uvec2 params; } pc;

int in_count(PoolParams p) { return p.in_size[0] * p.in_size[1] * p.in_size[2]; }
int out_count(PoolParams p) { return p.out_size[0] * p.out_size[1] * p.out_size[2]; }
ivec3 coords(int at, int s[3]) { return ivec3(at / (s[1] * s[2]), (at / s[2]) % s[1], at % s[2]); }
int cell(PoolParams p, int plane, int z, int y, int x) {
  return plane * in_count(p) + (z * p.in_size[1] + y) * p.in_size[2] + x;
}

// Output o's average window along dim d: x = first cell inside, y = end inside, z = the padded window's length.
ivec3 avg_span(PoolParams p, int d, int o) {
  int b = o * p.stride[d] - p.padding[d];
  int e = min(b + p.kernel[d], p.in_size[d] + p.padding[d]);
  return ivec3(max(b, 0), min(e, p.in_size[d]), e - b);
}

int divisor(PoolParams p, ivec3 o) {
  ivec3 z = avg_span(p, 0, o.x), y = avg_span(p, 1, o.y), x = avg_span(p, 2, o.z);
  return p.include_pad != 0 ? z.z * y.z * x.z : (z.y - z.x) * (y.y - y.x) * (x.y - x.x);
}

void avg_forward(PoolParams p, int i) {
  int plane = i / out_count(p);
  ivec3 o = coords(i % out_count(p), p.out_size);
  ivec3 z = avg_span(p, 0, o.x), y = avg_span(p, 1, o.y), x = avg_span(p, 2, o.z);
  VF sum = VF(0);
  for (int iz = z.x; iz < z.y; ++iz)
    for (int iy = y.x; iy < y.y; ++iy)
      for (int ix = x.x; ix < x.y; ++ix) sum += load_f(p.src_addr, DT, cell(p, plane, iz, iy, ix));
  store_f(p.dst_addr, DT, i, sum / VF(divisor(p, o)));
}

// The outputs along dim d whose average windows cover input position pos: [x, y).
ivec2 covering(PoolParams p, int d, int pos) {
  int reach = pos + p.padding[d], first = reach - p.kernel[d] < 0 ? 0 : (reach - p.kernel[d]) / p.stride[d] + 1;
  return ivec2(first, min(reach / p.stride[d] + 1, p.out_size[d]));
}

void avg_backward(PoolParams p, int i) {
  int plane = i / in_count(p);
  ivec3 pos = coords(i % in_count(p), p.in_size);
  ivec2 z = covering(p, 0, pos.x), y = covering(p, 1, pos.y), x = covering(p, 2, pos.z);
  VF sum = VF(0);
  for (int oz = z.x; oz < z.y; ++oz)
    for (int oy = y.x; oy < y.y; ++oy)
      for (int ox = x.x; ox < x.y; ++ox) {
        int o = plane * out_count(p) + (oz * p.out_size[1] + oy) * p.out_size[2] + ox;
        sum += load_f(p.src_addr, DT, o) / VF(divisor(p, ivec3(oz, oy, ox)));
      }
  store_f(p.dst_addr, DT, i, sum);
}

// Output o's max window along dim d: [x, y) in steps of the dilation (MODE 2), or its adaptive window (MODE 3).
ivec2 max_span(PoolParams p, int d, int o) {
  if (MODE == 3) {
    int n = p.in_size[d], m = p.out_size[d];
    return ivec2((o * n) / m, ((o + 1) * n + m - 1) / m);
  }
  int b = o * p.stride[d] - p.padding[d];
  int e = min(b + (p.kernel[d] - 1) * p.dilation[d] + 1, p.in_size[d]);
  while (b < 0) b += p.dilation[d];
  return ivec2(b, e);
}

void max_forward(PoolParams p, int i) {
  int plane = i / out_count(p);
  ivec3 o = coords(i % out_count(p), p.out_size);
  ivec2 z = max_span(p, 0, o.x), y = max_span(p, 1, o.y), x = max_span(p, 2, o.z);
  ivec3 step = MODE == 3 ? ivec3(1) : ivec3(p.dilation[0], p.dilation[1], p.dilation[2]);
  VF best = VF(uintBitsToFloat(0xff800000u));  // -inf
  int best_at = (z.x * p.in_size[1] + y.x) * p.in_size[2] + x.x;
  for (int iz = z.x; iz < z.y; iz += step.x)
    for (int iy = y.x; iy < y.y; iy += step.y)
      for (int ix = x.x; ix < x.y; ix += step.z) {
        VF v = load_f(p.src_addr, DT, cell(p, plane, iz, iy, ix));
        if (v > best || isnan(v)) {
          best = v;
          best_at = (iz * p.in_size[1] + iy) * p.in_size[2] + ix;
        }
      }
  store_f(p.dst_addr, DT, i, best);
  BufI64Words(p.index_addr).v[i] = ivec2(best_at, 0);
}

void main() {
  PoolParams p = PoolParams(pc.params);
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < p.total; i += step) {
    if (MODE == 0) avg_forward(p, i);
    else if (MODE == 1) avg_backward(p, i);
    else max_forward(p, i);
  }
}
