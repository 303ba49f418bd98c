#version 460
// The multi-tensor Adam/AdamW step: one dispatch steps every parameter of a table (kernels/optim.cpp), each
// workgroup CHUNK values of one tensor, found by binary search over the tensors' first workgroups. Per value, as the
// Cuda backend's kernels/optimizer.cu and backend/provided's composition: g' = g + wd·θ (unless decoupled);
// m' = β₁m + (1−β₁)g'; v' = β₂v + (1−β₂)g'²;
// θ' = θ − [decoupled: lr·wd·θ] − lr·(m'/(1−β₁ᵗ))/(√(v'/(1−β₂ᵗ)) + ε).
// f16/bf16 compute in f32, f64 in f64 (coefficients computed in double on the host).
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
const int CHUNK = 4096;

// Coefficient slots in the header.
const int LR = 0, BETA_1 = 1, BETA_2 = 2, ONE_MINUS_BETA_1 = 3, ONE_MINUS_BETA_2 = 4, EPSILON = 5, WEIGHT_DECAY = 6,
          LR_WEIGHT_DECAY = 7, CORRECTION_1 = 8, CORRECTION_2 = 9;

struct AdamTensor {
  uvec2 addr[7];    // param, grad, moment 1, moment 2, then param', moment 1', moment 2'
  int numel;
  int first_group;  // the first workgroup on this tensor
};

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer AdamParams {
  float narrow[10];  // the coefficients as float (f32/f16/bf16 steps)
  int decoupled;
  int decays;
  uvec2 wide[10];    // and as f64 bits (f64 steps)
  int count;
  int pad;
  AdamTensor tensors[];
};
layout(push_constant) uniform Push { uvec2 params; } pc;

VF coefficient(AdamParams p, int k) {
#ifdef SCORCH_WIDE
  return packDouble2x32(p.wide[k]);
#else
  return p.narrow[k];
#endif
}

// The tensor whose chunks include workgroup group: the last with first_group ≤ group.
int tensor_of(AdamParams p, int group) {
  int lo = 0, hi = p.count - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (p.tensors[mid].first_group <= group) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

void main() {
  AdamParams p = AdamParams(pc.params);
  int group = int(gl_WorkGroupID.x);
  AdamTensor t = p.tensors[tensor_of(p, group)];
  VF lr = coefficient(p, LR), beta_1 = coefficient(p, BETA_1), beta_2 = coefficient(p, BETA_2);
  VF omb_1 = coefficient(p, ONE_MINUS_BETA_1), omb_2 = coefficient(p, ONE_MINUS_BETA_2);
  VF eps = coefficient(p, EPSILON), wd = coefficient(p, WEIGHT_DECAY), lr_wd = coefficient(p, LR_WEIGHT_DECAY);
  VF c_1 = coefficient(p, CORRECTION_1), c_2 = coefficient(p, CORRECTION_2);
  bool decoupled = p.decoupled != 0, decays = p.decays != 0;
  int start = (group - t.first_group) * CHUNK, end = min(start + CHUNK, t.numel);
  for (int i = start + int(gl_LocalInvocationID.x); i < end; i += 256) {
    VF theta = load_f(t.addr[0], DT, i), g = load_f(t.addr[1], DT, i);
    VF m = load_f(t.addr[2], DT, i), v = load_f(t.addr[3], DT, i);
    if (decays && !decoupled) g += theta * wd;
    m = m * beta_1 + g * omb_1;
    v = v * beta_2 + g * g * omb_2;
    VF direction = (m / c_1) / (sqrt(v / c_2) + eps);
    if (decays && decoupled) theta -= theta * lr_wd;
    theta -= direction * lr;
    store_f(t.addr[4], DT, i, theta);
    store_f(t.addr[5], DT, i, m);
    store_f(t.addr[6], DT, i, v);
  }
}
