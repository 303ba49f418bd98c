#version 460
// Max pooling's input gradient: each output's grad added, with a float atomic, at the input position its index names
// in its plane, into an f32 accumulator the host zeroed (the order of the adds into one position varies between runs,
// as with CUDA's atomicAdd). An index outside the plane is reported through the status words (mode 4) and skipped.
#include "common.glsl"
#extension GL_EXT_shader_atomic_float : require

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufAtomicF32 { float v[]; };

layout(push_constant) uniform Push {
  uvec2 grad_addr;
  uvec2 index_addr;
  uvec2 acc_addr;
  uvec2 status_addr;
  int total;      // outputs over every plane
  int out_count;  // outputs per plane
  int in_count;   // inputs per plane
} pc;

void main() {
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < pc.total; i += step) {
    ivec2 words = BufI64Words(pc.index_addr).v[i];
    if (words.y != 0 || words.x < 0 || words.x >= pc.in_count) {
      // An index beyond 32 bits is reported clamped to them.
      int shown = words.y == (words.x >> 31) ? words.x : (words.y < 0 ? int(0x80000000u) : 0x7fffffff);
      report_index_error(pc.status_addr, 4u, shown, uint(pc.in_count));
      continue;
    }
    int at = (i / pc.out_count) * pc.in_count + words.x;
    atomicAdd(BufAtomicF32(pc.acc_addr).v[at], float(load_f(pc.grad_addr, DT, i)));
  }
}
