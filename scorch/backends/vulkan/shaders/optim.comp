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

// The header's coefficients and flags, read once into registers (the block lives in host-visible memory).
struct Coefficients {
  VF c[10];
  int flags;
};

Coefficients coefficients(StepParams p) {
  Coefficients k;
  for (int i = 0; i < 10; ++i) k.c[i] = coefficient(p, i);
  k.flags = p.flags;
  return k;
}

void adam_step(Coefficients k, StepTensor t, int i) {
  bool decoupled = (k.flags & DECOUPLED) != 0, decays = (k.flags & DECAYS) != 0;
  VF theta = load_f(t.addr[0], DT, i), g = load_f(t.addr[1], DT, i);
  VF m = load_f(t.addr[2], DT, i), v = load_f(t.addr[3], DT, i);
  if (decays && !decoupled) g += theta * k.c[WEIGHT_DECAY];
  m = m * k.c[BETA_1] + g * k.c[ONE_MINUS_BETA_1];
  v = v * k.c[BETA_2] + g * g * k.c[ONE_MINUS_BETA_2];
  VF direction = (m / k.c[CORRECTION_1]) / (sqrt(v / k.c[CORRECTION_2]) + k.c[EPSILON]);
  if (decays && decoupled) theta -= theta * k.c[LR_WEIGHT_DECAY];
  theta -= direction * k.c[LR];
  store_f(t.addr[4], DT, i, theta);
  store_f(t.addr[5], DT, i, m);
  store_f(t.addr[6], DT, i, v);
}

void sgd_step(Coefficients k, StepTensor t, int i) {
  VF theta = load_f(t.addr[0], DT, i), g = load_f(t.addr[1], DT, i), momentum = k.c[MOMENTUM];
  if ((k.flags & DECAYS) != 0) g += theta * k.c[WEIGHT_DECAY];
  if ((k.flags & WITH_MOMENTUM) != 0) {
    VF v = g;
    if ((k.flags & HAS_VELOCITY) != 0) v = load_f(t.addr[2], DT, i) * momentum + g * k.c[ONE_MINUS_DAMPENING];
    g = (k.flags & NESTEROV) != 0 ? g + v * momentum : v;
    store_f(t.addr[4], DT, i, v);
  }
  store_f(t.addr[3], DT, i, theta - g * k.c[LR]);
}

void main() {
  StepParams p = StepParams(pc.params);
  int group = int(gl_WorkGroupID.x);
  StepTensor t = p.tensors[tensor_of(p, group)];
  Coefficients k = coefficients(p);
  int start = (group - t.first_group) * CHUNK, end = min(start + CHUNK, t.numel);
  for (int i = start + int(gl_LocalInvocationID.x); i < end; i += 256) {
    if (MODE == 0) adam_step(k, t, i);
    else sgd_step(k, t, i);
  }
}
