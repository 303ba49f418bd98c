#version 460
// Softmax and log-softmax (LOG) along one dim of a contiguous input viewed as [outer, n, inner], as the Cpu backend's
// kernels/softmax.cpp computes them: a NaN in a lane makes the lane's max NaN; softmax = exp(x - max) · (1 / Σ),
// log-softmax = x - (max + log Σ). ROWS (inner 1): one workgroup per row, its invocations striding the row and
// combining in shared memory; else one invocation per (outer, inner) lane walking the dim. Narrow only: f32, and
// f16/bf16 in f32.
#include "common.glsl"
#include "math.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int LOG = 0;
layout(constant_id = 2) const int ROWS = 1;

layout(push_constant) uniform Push {
  uvec2 x_addr;
  uvec2 out_addr;
  int x_offset;
  int lanes;  // outer · inner (rows, where inner is 1)
  int n;
  int inner;
} pc;

shared float partial[256];

float max_nan(float a, float b) { return isnan(a) ? a : (isnan(b) ? b : (a > b ? a : b)); }

// v combined over the workgroup (max, NaN winning, or sum); every invocation gets the result.
float combine(float v, bool take_max) {
  uint t = gl_LocalInvocationID.x;
  partial[t] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] = take_max ? max_nan(partial[t], partial[t + s]) : partial[t] + partial[t + s];
    barrier();
  }
  float r = partial[0];
  barrier();
  return r;
}

float at(int i) { return float(load_f(pc.x_addr, DT, pc.x_offset + i)); }

// One lane of n values from first at stride, written to out at the same positions (out is contiguous from 0), the
// lane's max and sum combined across the workgroup when shared.
void lane(int first, int stride, int begin, int step, bool shared_lane) {
  float m = uintBitsToFloat(0xff800000u);  // -inf
  for (int k = begin; k < pc.n; k += step) m = max_nan(m, at(first + k * stride));
  if (shared_lane) m = combine(m, true);
  float total = 0.0;
  for (int k = begin; k < pc.n; k += step) total += exp_f32(at(first + k * stride) - m);
  if (shared_lane) total = combine(total, false);
  float shift = m + log(total), inv = 1.0 / total;
  for (int k = begin; k < pc.n; k += step) {
    float v = at(first + k * stride);
    store_f(pc.out_addr, DT, first + k * stride, LOG != 0 ? v - shift : exp_f32(v - m) * inv);
  }
}

void main() {
  if (ROWS != 0) {
    for (int row = int(gl_WorkGroupID.x); row < pc.lanes; row += int(gl_NumWorkGroups.x))
      lane(row * pc.n, 1, int(gl_LocalInvocationID.x), 256, true);
    return;
  }
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < pc.lanes; i += step)
    lane((i / pc.inner) * pc.n * pc.inner + i % pc.inner, pc.inner, 0, 1, false);
}
