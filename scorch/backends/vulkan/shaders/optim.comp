#version 460
// The multi-tensor optimizer steps: one dispatch steps every parameter of a table (kernels/optim.cpp), each
// workgroup CHUNK values of one tensor, found by binary search over the tensors' first workgroups. Per value, as the
// Cuda backend's kernels/optimizer.cu and backend/provided's compositions.
// MODE 0, Adam/AdamW: g' = g + wd·θ (unless decoupled); m' = β₁m + (1−β₁)g'; v' = β₂v + (1−β₂)g'²;
// θ' = θ − [decoupled: lr·wd·θ] − lr·(m'/(1−β₁ᵗ))/(√(v'/(1−β₂ᵗ)) + ε).
// MODE 1, SGD: g' = g + wd·θ; with momentum v' = μv + (1 − dampening)g' (g' on the first step), stepping along v'
// (g' + μv' when nesterov); θ' = θ − lr·step.
// f16/bf16 compute in f32, f64 in f64 (coefficients computed in double on the host).
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 0) const int DT = DT_F32;
layout(constant_id = 1) const int MODE = 0;
const int CHUNK = 4096;

// Coefficient slots in the header (SGD: LR, WEIGHT_DECAY, MOMENTUM, ONE_MINUS_DAMPENING), and its flags.
const int MOMENTUM = 1, ONE_MINUS_DAMPENING = 2;
const int DECOUPLED = 1, DECAYS = 2, WITH_MOMENTUM = 4, HAS_VELOCITY = 8, NESTEROV = 16;
const int LR = 0, BETA_1 = 1, BETA_2 = 2, ONE_MINUS_BETA_1 = 3, ONE_MINUS_BETA_2 = 4, EPSILON = 5, WEIGHT_DECAY = 6,
          LR_WEIGHT_DECAY = 7, CORRECTION_1 = 8, CORRECTION_2 = 9;

struct StepTensor {
  uvec2 addr[7];    // Adam: param, grad, moment 1, moment 2, param', moment 1', moment 2';
                    // SGD: param, grad, velocity, param', velocity'
  int numel;
  int first_group;  // the first workgroup on this tensor
};

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer StepParams {
  float narrow[10];  // the coefficients as float (f32/f16/bf16 steps)
  int flags;
  int pad0;
  uvec2 wide[10];    // and as f64 bits (f64 steps)
  int count;
  int pad;
  StepTensor tensors[];
};
layout(push_constant) uniform Push { uvec2 params; } pc;

VF coefficient(StepParams p, int k) {
#ifdef SCORCH_WIDE
  return packDouble2x32(p.wide[k]);
#else
  return p.narrow[k];
#endif
}

// The tensor whose chunks include workgroup group: the last with first_group ≤ group.
int tensor_of(StepParams p, int group) {
  int lo = 0, hi = p.count - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (p.tensors[mid].first_group <= group) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

void adam_step(StepParams p, StepTensor t, int i) {
  VF lr = coefficient(p, LR), beta_1 = coefficient(p, BETA_1), beta_2 = coefficient(p, BETA_2);
  VF eps = coefficient(p, EPSILON), c_1 = coefficient(p, CORRECTION_1), c_2 = coefficient(p, CORRECTION_2);
  bool decoupled = (p.flags & DECOUPLED) != 0, decays = (p.flags & DECAYS) != 0;
  VF theta = load_f(t.addr[0], DT, i), g = load_f(t.addr[1], DT, i);
  VF m = load_f(t.addr[2], DT, i), v = load_f(t.addr[3], DT, i);
  if (decays && !decoupled) g += theta * coefficient(p, WEIGHT_DECAY);
  m = m * beta_1 + g * coefficient(p, ONE_MINUS_BETA_1);
  v = v * beta_2 + g * g * coefficient(p, ONE_MINUS_BETA_2);
  VF direction = (m / c_1) / (sqrt(v / c_2) + eps);
  if (decays && decoupled) theta -= theta * coefficient(p, LR_WEIGHT_DECAY);
  theta -= direction * lr;
  store_f(t.addr[4], DT, i, theta);
  store_f(t.addr[5], DT, i, m);
  store_f(t.addr[6], DT, i, v);
}

void sgd_step(StepParams p, StepTensor t, int i) {
  VF theta = load_f(t.addr[0], DT, i), g = load_f(t.addr[1], DT, i), momentum = coefficient(p, MOMENTUM);
  if ((p.flags & DECAYS) != 0) g += theta * coefficient(p, WEIGHT_DECAY);
  if ((p.flags & WITH_MOMENTUM) != 0) {
    VF v = g;
    if ((p.flags & HAS_VELOCITY) != 0)
      v = load_f(t.addr[2], DT, i) * momentum + g * coefficient(p, ONE_MINUS_DAMPENING);
    g = (p.flags & NESTEROV) != 0 ? g + v * momentum : v;
    store_f(t.addr[4], DT, i, v);
  }
  store_f(t.addr[3], DT, i, theta - g * coefficient(p, LR));
}

void main() {
  StepParams p = StepParams(pc.params);
  int group = int(gl_WorkGroupID.x);
  StepTensor t = p.tensors[tensor_of(p, group)];
  int start = (group - t.first_group) * CHUNK, end = min(start + CHUNK, t.numel);
  for (int i = start + int(gl_LocalInvocationID.x); i < end; i += 256) {
    if (MODE == 0) adam_step(p, t, i);
    else sgd_step(p, t, i);
  }
}
