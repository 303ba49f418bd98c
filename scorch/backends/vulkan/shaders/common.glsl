// What every Scorch compute shader shares: buffer references by address (no descriptors), the dtype codes of
// scorch/core/dtype.h, loads and stores of every dtype as the compute types VF (float) and VI (int), and the
// strided index arithmetic. SCORCH_WIDE builds the variant whose compute types are double and int64_t (for f64 and
// i64 operands); the narrow variant computes in float and int and needs no 64-bit device feature.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#ifdef SCORCH_WIDE
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float64 : require
#define VF double
#define VI int64_t
#else
#define VF float
#define VI int
#endif

// DType codes (scorch/core/dtype.h).
#define DT_F64 0
#define DT_F32 1
#define DT_F16 2
#define DT_BF16 3
#define DT_I64 4
#define DT_I32 5
#define DT_I16 6
#define DT_I8 7
#define DT_U8 8
#define DT_BOOL 9
#define MAX_RANK 8

layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufF32 { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer BufF16 { float16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer BufU16 { uint16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer BufI32 { int v[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) buffer BufI16 { int16_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer BufI8 { int8_t v[]; };
layout(buffer_reference, std430, buffer_reference_align = 1) buffer BufU8 { uint8_t v[]; };
#ifdef SCORCH_WIDE
layout(buffer_reference, std430, buffer_reference_align = 8) buffer BufF64 { double v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer BufI64 { int64_t v[]; };
#endif

// A specialization constant, or where the shader's DYNAMIC constant is set, the bits of pc.codes at shift: pipelines
// that serve every op and dtype (for CPU devices, where compiling a pipeline costs more than running it).
#define DYNAMIC_FIELD(shift, mask, constant) (DYNAMIC != 0 ? (pc.codes >> (shift)) & (mask) : (constant))

// i64 values as (low, high) words: index tensors read and written without the 64-bit int feature.
layout(buffer_reference, std430, buffer_reference_align = 8) buffer BufI64Words { ivec2 v[]; };

// The context's status words (context.h): the first index error a dispatch meets, which the host reads at its next
// wait and throws as a ShapeError naming the op (mode: 0 gather, 1 select, 2 scatter_add, 3 select_add,
// 4 max_pool_backward).
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Status {
  uint flag;
  uint mode;
  int index;
  uint dim_size;
};
void report_index_error(uvec2 status_addr, uint mode, int index, uint size) {
  Status s = Status(status_addr);
  if (atomicOr(s.flag, 1u) == 0u) {
    s.mode = mode;
    s.index = index;
    s.dim_size = size;
  }
}

bool is_float_dtype(int dt) { return dt <= DT_BF16; }

float bf16_to_float(uint bits) { return uintBitsToFloat(bits << 16); }
// Round to nearest even; a NaN stays a NaN of its sign, made quiet.
uint float_to_bf16(float x) {
  uint bits = floatBitsToUint(x);
  if (isnan(x)) return (bits >> 16) | 0x40u;
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

// The value at element index i of a buffer of float dtype dt (f64, f32, f16, bf16).
VF load_float(uvec2 addr, int dt, int i) {
  switch (dt) {
#ifdef SCORCH_WIDE
    case DT_F64: return BufF64(addr).v[i];
#endif
    case DT_F32: return VF(BufF32(addr).v[i]);
    case DT_F16: return VF(float(BufF16(addr).v[i]));
    default: return VF(bf16_to_float(uint(BufU16(addr).v[i])));
  }
}
// The value at element index i of a buffer of int or bool dtype dt.
VI load_int(uvec2 addr, int dt, int i) {
  switch (dt) {
#ifdef SCORCH_WIDE
    case DT_I64: return BufI64(addr).v[i];
#endif
    case DT_I32: return VI(BufI32(addr).v[i]);
    case DT_I16: return VI(int(BufI16(addr).v[i]));
    case DT_I8: return VI(int(BufI8(addr).v[i]));
    default: return VI(uint(BufU8(addr).v[i]));  // u8, bool
  }
}
// Stores float x at element index i of a buffer of float dtype dt (rounding to it).
void store_float(uvec2 addr, int dt, int i, VF x) {
  switch (dt) {
#ifdef SCORCH_WIDE
    case DT_F64: BufF64(addr).v[i] = x; break;
#endif
    case DT_F32: BufF32(addr).v[i] = float(x); break;
    case DT_F16: BufF16(addr).v[i] = float16_t(float(x)); break;
    default: BufU16(addr).v[i] = uint16_t(float_to_bf16(float(x))); break;
  }
}
// Stores int x at element index i of a buffer of int dtype dt (narrower ints wrap; bool: x != 0).
void store_int(uvec2 addr, int dt, int i, VI x) {
  switch (dt) {
#ifdef SCORCH_WIDE
    case DT_I64: BufI64(addr).v[i] = x; break;
#endif
    case DT_I32: BufI32(addr).v[i] = int(x); break;
    case DT_I16: BufI16(addr).v[i] = int16_t(int(x)); break;
    case DT_I8: BufI8(addr).v[i] = int8_t(int(x)); break;
    case DT_U8: BufU8(addr).v[i] = uint8_t(int(x)); break;
    default: BufU8(addr).v[i] = uint8_t(x != VI(0) ? 1 : 0); break;
  }
}

// Any dtype's value as the float compute type, or as the int one (floats truncated toward zero).
VF load_f(uvec2 addr, int dt, int i) {
  return is_float_dtype(dt) ? load_float(addr, dt, i) : VF(load_int(addr, dt, i));
}
VI load_i(uvec2 addr, int dt, int i) {
  return is_float_dtype(dt) ? VI(load_float(addr, dt, i)) : load_int(addr, dt, i);
}
// Stores a float into any dtype (ints truncated, bool: x != 0), or an int into any dtype.
void store_f(uvec2 addr, int dt, int i, VF x) {
  if (is_float_dtype(dt)) store_float(addr, dt, i, x);
  else store_int(addr, dt, i, dt == DT_BOOL ? VI(x != VF(0) ? 1 : 0) : VI(x));
}
void store_i(uvec2 addr, int dt, int i, VI x) {
  if (is_float_dtype(dt)) store_float(addr, dt, i, VF(x));
  else store_int(addr, dt, i, x);
}

// One operand of a strided kernel: its buffer, element offset and strides over the kernel's shape.
struct Operand {
  uvec2 addr;
  int offset;
  int pad;
  int strides[MAX_RANK];
};
