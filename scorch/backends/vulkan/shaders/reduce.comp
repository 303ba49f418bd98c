#version 460
// Reductions along one dim of a contiguous input viewed as [outer, n, inner]: sum, prod, max, min (NaN wins), mean,
// argmax and argmin (the first extreme index; the first NaN wins). LANES: one invocation per output walks the dim
// (inner > 1, reads coalesced across lanes); else one workgroup per output combines 256 partial folds in order.
// DYNAMIC: the op, dtypes and kind come from pc.codes (op | out << 8 | a << 12 | kind << 24), as in map.comp.
#include "common.glsl"
#include "op_codes.h"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int SPEC_OP = RED_SUM;
layout(constant_id = 1) const int SPEC_DT_OUT = DT_F32;
layout(constant_id = 2) const int SPEC_DT_A = DT_F32;
layout(constant_id = 3) const int SPEC_KIND = KIND_FLOAT;
layout(constant_id = 4) const int LANES = 1;
layout(constant_id = 5) const int DYNAMIC = 0;

layout(push_constant) uniform Push {
  uvec2 a_addr;
  uvec2 out_addr;
  int a_offset;
  int out_offset;
  int outer;
  int n;
  int inner;
  int codes;
} pc;

#define OP DYNAMIC_FIELD(0, 0xff, SPEC_OP)
#define DT_OUT DYNAMIC_FIELD(8, 0xf, SPEC_DT_OUT)
#define DT_A DYNAMIC_FIELD(12, 0xf, SPEC_DT_A)
#define KIND DYNAMIC_FIELD(24, 0xf, SPEC_KIND)

bool is_arg() { return OP == RED_ARGMAX || OP == RED_ARGMIN; }

// Fold state: a float or int accumulator and, for arg ops, the index of the kept value.
struct Acc {
  VF f;
  VI i;
  int k;
};

bool nan_of(Acc a) { return KIND == KIND_FLOAT && isnan(a.f); }

// True when v (at a later index than best) replaces best.
bool replaces(Acc v, Acc best) {
  if (nan_of(best)) return false;
  if (nan_of(v)) return true;
  bool greater = KIND == KIND_FLOAT ? v.f > best.f : v.i > best.i;
  bool lower = KIND == KIND_FLOAT ? v.f < best.f : v.i < best.i;
  return (OP == RED_MAX || OP == RED_ARGMAX) ? greater : lower;
}

// acc ∘ v, where v comes after acc in the dim's order.
Acc combine(Acc acc, Acc v) {
  if (OP == RED_SUM || OP == RED_MEAN) {
    acc.f += v.f;
    acc.i += v.i;
  } else if (OP == RED_PROD) {
    acc.f *= v.f;
    acc.i *= v.i;
  } else if (replaces(v, acc)) {
    acc = v;
  }
  return acc;
}

Acc load_acc(int index, int k) {
  Acc a;
  a.f = KIND == KIND_FLOAT ? load_f(pc.a_addr, DT_A, index) : VF(0);
  a.i = KIND == KIND_FLOAT ? VI(0) : load_i(pc.a_addr, DT_A, index);
  a.k = k;
  return a;
}

VI floor_div(VI a, VI b) {
  VI q = a / b;
  if (a - q * b != VI(0) && ((a < VI(0)) != (b < VI(0)))) q -= VI(1);
  return q;
}

void finish(int o, Acc acc) {
  int at = pc.out_offset + o;
  if (is_arg()) store_i(pc.out_addr, DT_OUT, at, VI(acc.k));
  else if (KIND == KIND_FLOAT) store_f(pc.out_addr, DT_OUT, at, OP == RED_MEAN ? acc.f / VF(pc.n) : acc.f);
  else store_i(pc.out_addr, DT_OUT, at, OP == RED_MEAN ? floor_div(acc.i, VI(pc.n)) : acc.i);
}

shared VF partial_f[256];
shared VI partial_i[256];
shared int partial_k[256];
shared bool partial_set[256];

void main() {
  if (LANES != 0) {
    int lanes = pc.outer * pc.inner;
    int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
    for (int lane = int(gl_GlobalInvocationID.x); lane < lanes; lane += step) {
      int base = pc.a_offset + (lane / pc.inner) * pc.n * pc.inner + lane % pc.inner;
      Acc acc = load_acc(base, 0);
      // Nested so no loop runs 65536 times or more (llvmpipe stops loops there).
      for (int k0 = 1; k0 < pc.n; k0 += 4096)
        for (int k = k0; k < min(pc.n, k0 + 4096); ++k) acc = combine(acc, load_acc(base + k * pc.inner, k));
      finish(lane, acc);
    }
    return;
  }
  uint t = gl_LocalInvocationID.x;
  for (int o = int(gl_WorkGroupID.x); o < pc.outer; o += int(gl_NumWorkGroups.x)) {
    int base = pc.a_offset + o * pc.n;
    bool set = int(t) < pc.n;
    Acc acc;
    acc.f = VF(0);
    acc.i = VI(0);
    acc.k = 0;
    if (set) {
      acc = load_acc(base + int(t), int(t));
      for (int k0 = int(t) + 256; k0 < pc.n; k0 += 256 * 4096)
        for (int k = k0; k < min(pc.n, k0 + 256 * 4096); k += 256) acc = combine(acc, load_acc(base + k, k));
    }
    partial_f[t] = acc.f;
    partial_i[t] = acc.i;
    partial_k[t] = acc.k;
    partial_set[t] = set;
    barrier();
    for (uint width = 128; width > 0; width >>= 1) {
      if (t < width && partial_set[t + width]) {
        Acc mine = Acc(partial_f[t], partial_i[t], partial_k[t]);
        Acc other = Acc(partial_f[t + width], partial_i[t + width], partial_k[t + width]);
        // Thread t + width's values come after thread t's for every index they fold (k mod 256 order).
        Acc merged = combine(mine, other);
        if (is_arg() && !replaces(other, mine) && !replaces(mine, other) && other.k < mine.k) merged = other;
        partial_f[t] = merged.f;
        partial_i[t] = merged.i;
        partial_k[t] = merged.k;
      }
      barrier();
    }
    if (t == 0) finish(o, Acc(partial_f[0], partial_i[0], partial_k[0]));
    barrier();
  }
}
