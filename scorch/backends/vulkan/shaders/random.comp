#version 460
// Random tensors: element i of draw `draw` under key `key` is Philox4x32-10 of the counter (i, draw), as the Cuda
// backend draws them; uniform, Bernoulli and normal (Box-Muller) values in the compute type, ints floored.
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT_OUT = DT_F32;
layout(constant_id = 1) const int KIND = 0;  // Distribution::Kind: Default, Uniform, Bernoulli, Normal

layout(push_constant) uniform Push {
  uvec2 out_addr;
  uvec2 key;
  uvec2 draw;
  uvec2 a_bits;  // the distribution's a and b as doubles
  uvec2 b_bits;
  int n;
} pc;

uvec4 philox(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; ++round) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k += uvec2(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

#ifdef SCORCH_WIDE
VF unit(uint lo, uint hi) { return VF((uint64_t(hi) << 32 | uint64_t(lo)) >> 11) * VF(1.1102230246251565e-16); }
VF param(uvec2 bits) { return packDouble2x32(bits); }
#else
VF unit(uint lo, uint hi) { return VF(hi >> 8) * VF(5.9604644775390625e-08); }  // 24 random bits
VF param(uvec2 bits) {  // the double's value rounded to float, from its sign, exponent and top mantissa bits
  uint hi = bits.y;
  int e = int((hi >> 20) & 0x7ffu);
  if (e == 0) return 0.0;
  float m = 1.0 + float(hi & 0xfffffu) / 1048576.0 + float(bits.x) / 4503599627370496.0;
  float v = ldexp(m, e - 1023);
  return (hi >> 31) != 0u ? -v : v;
}
#endif

void main() {
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  VF a = param(pc.a_bits), b = param(pc.b_bits);
  for (int i = int(gl_GlobalInvocationID.x); i < pc.n; i += step) {
    uvec4 r = philox(uvec4(uint(i), 0u, pc.draw.x, pc.draw.y), pc.key);
    VF u = unit(r.x, r.y), v = u;
    if (KIND == 1) v = a + (b - a) * u;
    else if (KIND == 2) v = u < a ? VF(1) : VF(0);
    else if (KIND == 3) {
      float radius = sqrt(-2.0 * log(float(VF(1) - u)));
      v = a + b * VF(radius * cos(6.283185307179586 * float(unit(r.z, r.w))));
    }
    if (!is_float_dtype(DT_OUT) && DT_OUT != DT_BOOL) v = floor(v);
    store_f(pc.out_addr, DT_OUT, i, v);
  }
}
