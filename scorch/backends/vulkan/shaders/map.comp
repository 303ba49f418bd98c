#version 460
// The elementwise kernel: out[i] = f(operands at i) over a strided, broadcast shape, for every elementwise op,
// cast, copy, fill and mask of the backend. The op, the dtypes and the operand form are specialization constants, so
// each pipeline is one straight loop; CONTIG skips the index arithmetic when every operand is dense in order. With
// DYNAMIC they come from the push constants instead: one pipeline serves every op (for CPU devices such as lavapipe,
// where compiling a pipeline costs more than running it).
#include "common.glsl"
#include "math.glsl"
#include "op_codes.h"

// x rounded to the nearest integer, ties to even, written out: Mesa's lavapipe rounds f64 ties down in roundEven
// (1.5 gave 1). Values of magnitude 2^52 (f64) or 2^23 (f32) and more are integers already; NaN and inf pass through.
VF round_half_even(VF x) {
#ifdef SCORCH_WIDE
  const VF integral = VF(4503599627370496.0LF);
#else
  const VF integral = VF(8388608.0);
#endif
  if (!(abs(x) < integral)) return x;
  VF r = floor(x);
  VF above = x - r;  // exact below 2^52 (2^23)
  if (above > VF(0.5) || (above == VF(0.5) && mod(r, VF(2)) != VF(0))) r += VF(1);
  return r == VF(0) && x < VF(0) ? -VF(0) : r;  // -0.4 rounds to -0, as in PyTorch
}

layout(local_size_x = 256) in;
layout(constant_id = 0) const int SPEC_OP = 0;
layout(constant_id = 1) const int SPEC_DT_OUT = DT_F32;
layout(constant_id = 2) const int SPEC_DT_A = DT_F32;
layout(constant_id = 3) const int SPEC_DT_B = DT_F32;
layout(constant_id = 4) const int SPEC_DT_C = DT_BOOL;
layout(constant_id = 5) const int SPEC_KIND = KIND_FLOAT;
layout(constant_id = 6) const int SPEC_FORM = FORM_UNARY;
layout(constant_id = 7) const int CONTIG = 0;
layout(constant_id = 8) const int SPEC_BITS = 32;
// 1 for f32 ops on dense operands whose offsets are multiples of 4: four elements per 16-byte load and store.
layout(constant_id = 9) const int VEC4 = 0;
// 1: the op, dtypes, kind, form and bit width are read from pc.codes (op | out << 8 | a << 12 | b << 16 | c << 20 |
// kind << 24 | form << 28) and pc.bits instead of the constants above.
layout(constant_id = 10) const int DYNAMIC = 0;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer BufV4 { vec4 v[]; };

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer MapParams {
  int rank;
  int n;
  int pad0;
  int pad1;
  int shape[MAX_RANK];
  Operand out_op;
  Operand a_op;
  Operand b_op;
  Operand c_op;
  float scalar_f;
  int scalar_i;
  uvec2 scalar_f64;
  uvec2 scalar_i64;
  uvec2 pad2;
};
// What every launch needs, in push constants (no memory read before the first element); the parameter block holds
// the shape and strides, read only by strided launches (CONTIG == 0).
layout(push_constant) uniform Push {
  uvec2 params;
  uvec2 out_addr, a_addr, b_addr, c_addr;
  uvec2 scalar_f64, scalar_i64;
  int base_out, base_a, base_b, base_c;
  int n;
  float scalar_f;
  int scalar_i;
  int codes;
  int bits;
} pc;

#define OP DYNAMIC_FIELD(0, 0xff, SPEC_OP)
#define DT_OUT DYNAMIC_FIELD(8, 0xf, SPEC_DT_OUT)
#define DT_A DYNAMIC_FIELD(12, 0xf, SPEC_DT_A)
#define DT_B DYNAMIC_FIELD(16, 0xf, SPEC_DT_B)
#define DT_C DYNAMIC_FIELD(20, 0xf, SPEC_DT_C)
#define KIND DYNAMIC_FIELD(24, 0xf, SPEC_KIND)
#define FORM DYNAMIC_FIELD(28, 0xf, SPEC_FORM)
#define BITS (DYNAMIC != 0 ? pc.bits : SPEC_BITS)

VF scalar_float() {
#ifdef SCORCH_WIDE
  return packDouble2x32(pc.scalar_f64);
#else
  return pc.scalar_f;
#endif
}
VI scalar_int() {
#ifdef SCORCH_WIDE
  return int64_t(packUint2x32(pc.scalar_i64));
#else
  return pc.scalar_i;
#endif
}

VF unary_f(VF x) {
  float f = float(x);
  switch (OP) {
    case OP_COPY: return x;
    SCORCH_VK_UNARY_F_CASES
    default: return x;
  }
}

VF binary_f(VF a, VF b) {
  switch (OP) {
    SCORCH_VK_BINARY_F_CASES
    case OP_DIV: return a / b;
    case OP_REM: {
      // C's fmod (exact; f64 tensors run this op on the host), then the divisor's sign as Python's %.
      VF r = VF(fmod_f32(float(a), float(b)));
      if (r != VF(0) && ((r < VF(0)) != (b < VF(0)))) r += b;
      return r;
    }
    case OP_MIN: return (isnan(a) || a < b) ? a : b;
    case OP_MAX: return (isnan(a) || a > b) ? a : b;
    default: return a;
  }
}

VI unary_i(VI x) {
  switch (OP) {
    case OP_ABS: return x < VI(0) ? -x : x;
    case OP_NEG: return -x;
    case OP_SIGN: return VI((VI(0) < x ? 1 : 0) - (x < VI(0) ? 1 : 0));
    case OP_BIT_NOT: return ~x;
    case OP_LOGICAL_NOT: return x == VI(0) ? VI(1) : VI(0);
    case OP_RELU: return x > VI(0) ? x : VI(0);
    default: return x;
  }
}

VI floor_div(VI a, VI b) {
  if (b == VI(0)) return VI(0);
  if (b == VI(-1)) return -a;
  VI q = a / b;
  if (a - q * b != VI(0) && ((a < VI(0)) != (b < VI(0)))) q -= VI(1);
  return q;
}

// a^b as integers (scalar_ops' IntPow): a negative exponent leaves 1 and -1 a unit, every other base 0.
VI int_pow(VI a, VI b) {
  if (b < VI(0)) return a == VI(1) ? VI(1) : (a == VI(-1) ? ((b & VI(1)) != VI(0) ? VI(-1) : VI(1)) : VI(0));
  VI result = VI(1), base = a;
  for (VI e = b; e != VI(0); e >>= 1) {
    if ((e & VI(1)) != VI(0)) result *= base;
    base *= base;
  }
  return result;
}

VI binary_i(VI a, VI b) {
  switch (OP) {
    case OP_POW: return int_pow(a, b);
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return floor_div(a, b);
    case OP_REM: return (b == VI(0) || b == VI(-1)) ? VI(0) : a - floor_div(a, b) * b;
    case OP_MIN: return a < b ? a : b;
    case OP_MAX: return a > b ? a : b;
    case OP_CLAMP_MIN: return a < b ? b : a;
    case OP_CLAMP_MAX: return a > b ? b : a;
    case OP_BIT_AND: return a & b;
    case OP_BIT_OR: return a | b;
    case OP_BIT_XOR: return a ^ b;
    case OP_SHL: return (b < VI(0) || b >= VI(BITS)) ? VI(0) : a << b;
    case OP_SHR: return (b < VI(0) || b >= VI(BITS)) ? (a < VI(0) ? VI(-1) : VI(0)) : a >> b;
    case OP_LOGICAL_AND: return (a != VI(0) && b != VI(0)) ? VI(1) : VI(0);
    case OP_LOGICAL_OR: return (a != VI(0) || b != VI(0)) ? VI(1) : VI(0);
    case OP_LOGICAL_XOR: return ((a != VI(0)) != (b != VI(0))) ? VI(1) : VI(0);
    default: return a;
  }
}

bool is_compare() { return OP >= OP_EQ && OP <= OP_LE; }
bool is_predicate() { return OP == OP_IS_NAN || OP == OP_IS_INF; }

bool compare_f(VF a, VF b) {
  switch (OP) {
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_LT: return a < b;
    default: return a <= b;
  }
}
bool compare_i(VI a, VI b) {
  switch (OP) {
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_LT: return a < b;
    default: return a <= b;
  }
}

// What every element reads.
struct Args {
  uvec2 out_addr, a_addr, b_addr, c_addr;
  VF sf;
  VI si;
};

void element(Args p, int o_out, int o_a, int o_b, int o_c) {
  if (FORM == FORM_FILL) {
    if (KIND == KIND_FLOAT) store_f(p.out_addr, DT_OUT, o_out, p.sf);
    else store_i(p.out_addr, DT_OUT, o_out, p.si);
    return;
  }
  if (FORM == FORM_WHERE || FORM == FORM_MASK_FILL) {
    bool take = load_i(p.c_addr, DT_C, o_c) != VI(0);
    if (KIND == KIND_FLOAT) {
      VF v = take ? (FORM == FORM_WHERE ? load_f(p.b_addr, DT_B, o_b) : p.sf)
                  : load_f(p.a_addr, DT_A, o_a);
      store_f(p.out_addr, DT_OUT, o_out, v);
    } else {
      VI v = take ? (FORM == FORM_WHERE ? load_i(p.b_addr, DT_B, o_b) : p.si)
                  : load_i(p.a_addr, DT_A, o_a);
      store_i(p.out_addr, DT_OUT, o_out, v);
    }
    return;
  }
  if (KIND == KIND_FLOAT) {
    VF a = load_f(p.a_addr, DT_A, o_a);
    if (FORM == FORM_UNARY) {
      if (is_predicate()) {
        bool r = OP == OP_IS_NAN ? isnan(a) : isinf(a);
        store_i(p.out_addr, DT_OUT, o_out, VI(r ? 1 : 0));
      } else {
        store_f(p.out_addr, DT_OUT, o_out, unary_f(a));
      }
      return;
    }
    VF b = FORM == FORM_SCALAR ? p.sf : load_f(p.b_addr, DT_B, o_b);
    if (is_compare()) store_i(p.out_addr, DT_OUT, o_out, VI(compare_f(a, b) ? 1 : 0));
    else store_f(p.out_addr, DT_OUT, o_out, binary_f(a, b));
  } else {
    VI a = load_i(p.a_addr, DT_A, o_a);
    if (FORM == FORM_UNARY) {
      store_i(p.out_addr, DT_OUT, o_out, unary_i(a));
      return;
    }
    VI b = FORM == FORM_SCALAR ? p.si : load_i(p.b_addr, DT_B, o_b);
    if (is_compare()) store_i(p.out_addr, DT_OUT, o_out, VI(compare_i(a, b) ? 1 : 0));
    else store_i(p.out_addr, DT_OUT, o_out, binary_i(a, b));
  }
}

void main() {
  int n = pc.n;
  int step = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  Args args = Args(pc.out_addr, pc.a_addr, pc.b_addr, pc.c_addr, scalar_float(), scalar_int());
  int base_out = pc.base_out, base_a = pc.base_a, base_b = pc.base_b, base_c = pc.base_c;
#ifndef SCORCH_WIDE
  if (VEC4 != 0) {
    int n4 = n / 4;
    for (int i = int(gl_GlobalInvocationID.x); i < n4; i += step) {
      vec4 a = BufV4(args.a_addr).v[base_a / 4 + i];
      vec4 b = FORM == FORM_BINARY ? BufV4(args.b_addr).v[base_b / 4 + i] : vec4(args.sf);
      vec4 r;
      for (int c = 0; c < 4; ++c) r[c] = FORM == FORM_UNARY ? unary_f(a[c]) : binary_f(a[c], b[c]);
      BufV4(args.out_addr).v[base_out / 4 + i] = r;
    }
    for (int i = n4 * 4 + int(gl_GlobalInvocationID.x); i < n; i += step)
      element(args, base_out + i, base_a + i, base_b + i, base_c + i);
    return;
  }
#endif
  for (int i = int(gl_GlobalInvocationID.x); i < n; i += step) {
    if (CONTIG != 0) {
      element(args, base_out + i, base_a + i, base_b + i, base_c + i);
      continue;
    }
    MapParams p = MapParams(pc.params);
    int rest = i, o_out = base_out, o_a = base_a, o_b = base_b, o_c = base_c;
    for (int d = p.rank - 1; d >= 0; --d) {
      int size = p.shape[d];
      int coord = rest % size;
      rest /= size;
      o_out += coord * p.out_op.strides[d];
      o_a += coord * p.a_op.strides[d];
      o_b += coord * p.b_op.strides[d];
      o_c += coord * p.c_op.strides[d];
    }
    element(args, o_out, o_a, o_b, o_c);
  }
}
