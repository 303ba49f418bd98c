#version 460
// Interpolation of [planes, depth, height, width] (1d and 2d right-aligned with unit dims) with the coordinate rules of
// the Cpu backend's kernels/interpolate.cpp (nearest, linear, cubic with a = -0.75; align_corners):
// MODE 0 forward: out = Σ wz·(Σ wy·(Σ wx·x)) over the output's taps, innermost first;
// MODE 1 input gradient: each input position gathers w·grad from the outputs whose taps reach it, in the order the
// Cpu's scatter adds them (no atomics, so every dtype and device, deterministic; weights in the compute type, where
// the Cpu computes them in double: ulp-level differences in f32).
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int MODE = 0;

layout(push_constant) uniform Push {
  uvec2 src_addr;  // x, or grad (MODE 1)
  uvec2 dst_addr;  // the output, or the input gradient (MODE 1)
  int total;       // elements written
  int flags;       // bits 0-1 mode (0 nearest, 1 linear, 2 cubic), bit 2 align_corners, bits 3-5 the active dims
  int in_size[3];
  int out_size[3];
} pc;

// One output index's taps along one axis: source indices and weights.
struct Taps {
  int count;
  int index[4];
  VF weight[4];
};

int interp_mode() { return pc.flags & 3; }
bool align_corners() { return (pc.flags & 4) != 0; }
bool dim_active(int d) { return ((pc.flags >> (3 + d)) & 1) != 0; }

// PyTorch's cubic convolution weights for |x| ≤ 1 and 1 < |x| < 2.
VF cubic_near(VF x, VF a) {
  precise VF w = ((a + 2) * x - (a + 3)) * x * x + 1;
  return w;
}
VF cubic_far(VF x, VF a) {
  precise VF w = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return w;
}

// The linear/cubic source coordinate of output o along d (never contracted, as on the Cpu).
VF source_coordinate(int d, int o) {
  int in_n = pc.in_size[d], out_n = pc.out_size[d];
  if (align_corners()) {
    precise VF scale = out_n > 1 ? VF(in_n - 1) / VF(out_n - 1) : VF(0);
    precise VF src = scale * VF(o);
    return src;
  }
  precise VF scale = VF(in_n) / VF(out_n);
  precise VF src = scale * (VF(o) + VF(0.5)) - VF(0.5);
  return src;
}

Taps axis_taps(int d, int o) {
  Taps t;
  t.count = 1;
  t.index = int[4](0, 0, 0, 0);
  t.weight = VF[4](VF(1), VF(0), VF(0), VF(0));
  if (!dim_active(d)) return t;
  int last = pc.in_size[d] - 1;
  if (interp_mode() == 0) {
    precise float scaled = float(o) * (float(pc.in_size[d]) / float(pc.out_size[d]));
    t.index[0] = min(int(floor(scaled)), last);
    return t;
  }
  VF src = source_coordinate(d, o);
  if (interp_mode() == 1) {
    if (!align_corners() && src < 0) src = VF(0);
    int i0 = int(src);
    VF l1 = src - VF(i0);
    t.count = 2;
    t.index = int[4](i0, i0 < last ? i0 + 1 : i0, 0, 0);
    t.weight = VF[4](VF(1) - l1, l1, VF(0), VF(0));
    return t;
  }
  int i0 = int(floor(src));
  VF f = src - VF(i0), a = VF(-0.75);
  t.count = 4;
  t.weight = VF[4](cubic_far(f + 1, a), cubic_near(f, a), cubic_near(1 - f, a), cubic_far(2 - f, a));
  for (int k = 0; k < 4; ++k) t.index[k] = clamp(i0 - 1 + k, 0, last);
  return t;
}

int count3(int s[3]) { return s[0] * s[1] * s[2]; }
ivec3 coords(int at, int s[3]) { return ivec3(at / (s[1] * s[2]), (at / s[2]) % s[1], at % s[2]); }

void forward(int i) {
  int plane = i / count3(pc.out_size);
  ivec3 o = coords(i % count3(pc.out_size), pc.out_size);
  Taps tz = axis_taps(0, o.x), ty = axis_taps(1, o.y), tx = axis_taps(2, o.z);
  int base = plane * count3(pc.in_size);
  VF acc = VF(0);
  for (int a = 0; a < tz.count; ++a) {
    VF slab = VF(0);
    for (int b = 0; b < ty.count; ++b) {
      int line = base + (tz.index[a] * pc.in_size[1] + ty.index[b]) * pc.in_size[2];
      VF row = VF(0);
      for (int c = 0; c < tx.count; ++c) row += tx.weight[c] * load_f(pc.src_addr, DT, line + tx.index[c]);
      slab += ty.weight[b] * row;
    }
    acc += tz.weight[a] * slab;
  }
  store_f(pc.dst_addr, DT, i, acc);
}

// The outputs along d whose taps may reach input position pos, [x, y]: a superset (the taps of output o lie within
// [floor(src) - 1, floor(src) + 2] before clamping, src ≈ scale·o + shift), exact membership checked per output.
ivec2 reaching(int d, int pos) {
  int in_n = pc.in_size[d], out_n = pc.out_size[d];
  if (!dim_active(d)) return ivec2(0, 0);
  bool shifted = interp_mode() != 0 && !align_corners();
  float scale = align_corners() && interp_mode() != 0 ? (out_n > 1 ? float(in_n - 1) / float(out_n - 1) : 0.0)
                                                      : float(in_n) / float(out_n);
  if (scale <= 0.0) return ivec2(0, out_n - 1);
  float shift = shifted ? 0.5 * scale - 0.5 : 0.0;
  int lo = pos == 0 ? 0 : max(int(floor((float(pos) - 2.0 - shift) / scale)) - 1, 0);
  int hi = pos == in_n - 1 ? out_n - 1 : min(int(ceil((float(pos) + 2.0 - shift) / scale)) + 1, out_n - 1);
  return ivec2(lo, hi);
}

void backward(int i) {
  int plane = i / count3(pc.in_size);
  ivec3 at = coords(i % count3(pc.in_size), pc.in_size);
  ivec2 z = reaching(0, at.x), y = reaching(1, at.y), x = reaching(2, at.z);
  int base = plane * count3(pc.out_size);
  VF acc = VF(0);
  // outputs in order, each one's taps as the Cpu's scatter adds them, every tap separately: clamped taps of opposite
  // weights turn ±inf into NaN there too
  for (int oz = z.x; oz <= z.y; ++oz) {
    Taps tz = axis_taps(0, oz);
    for (int oy = y.x; oy <= y.y; ++oy) {
      Taps ty = axis_taps(1, oy);
      int line = base + (oz * pc.out_size[1] + oy) * pc.out_size[2];
      for (int ox = x.x; ox <= x.y; ++ox) {
        Taps tx = axis_taps(2, ox);
        VF g = load_f(pc.src_addr, DT, line + ox);
        for (int a = 0; a < tz.count; ++a)
          for (int b = 0; b < ty.count; ++b)
            for (int c = 0; c < tx.count; ++c)
              if (tz.index[a] == at.x && ty.index[b] == at.y && tx.index[c] == at.z)
                acc += tz.weight[a] * ty.weight[b] * tx.weight[c] * g;
      }
    }
  }
  store_f(pc.dst_addr, DT, i, acc);
}

void main() {
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < pc.total; i += step) {
    if (MODE == 0) forward(i);
    else backward(i);
  }
}
