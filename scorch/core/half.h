#pragma once
// 16-bit float storage types: IEEE f16 and bfloat16, converted with round-to-nearest-even.
#include <cstdint>
#include <cstring>

#include "scorch/core/bit_cast.h"

namespace scorch {

/// Rounds an f32 to the nearest f16 bit pattern (ties to even; overflow gives inf; NaN stays NaN).
constexpr uint16_t f32_to_f16_bits(float value) {
  uint32_t x = scorch::bit_cast<uint32_t>(value);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xffu) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half_mant = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

/// Widens an f16 bit pattern to f32 exactly.
constexpr float f16_bits_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return scorch::bit_cast<float>(sign);
    int shift = 0;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      ++shift;
    }
    mant &= 0x3ffu;
    return scorch::bit_cast<float>(sign | (static_cast<uint32_t>(113 - shift) << 23) | (mant << 13));
  }
  if (exp == 31) return scorch::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return scorch::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

/// Rounds an f32 to the nearest bf16 bit pattern (ties to even; NaN stays NaN).
constexpr uint16_t f32_to_bf16_bits(float value) {
  uint32_t x = scorch::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

/// Widens a bf16 bit pattern to f32 exactly.
constexpr float bf16_bits_to_f32(uint16_t b) { return scorch::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

/// IEEE binary16 value; arithmetic happens in f32.
struct f16 {
  uint16_t bits = 0;
  constexpr f16() = default;
  constexpr explicit f16(float v) : bits(f32_to_f16_bits(v)) {}
  constexpr explicit f16(double v) : bits(f32_to_f16_bits(static_cast<float>(v))) {}
  constexpr operator float() const { return f16_bits_to_f32(bits); }
  static constexpr f16 from_bits(uint16_t b) {
    f16 h;
    h.bits = b;
    return h;
  }
};

/// bfloat16 value; arithmetic happens in f32.
struct bf16 {
  uint16_t bits = 0;
  constexpr bf16() = default;
  constexpr explicit bf16(float v) : bits(f32_to_bf16_bits(v)) {}
  constexpr explicit bf16(double v) : bits(f32_to_bf16_bits(static_cast<float>(v))) {}
  constexpr operator float() const { return bf16_bits_to_f32(bits); }
  static constexpr bf16 from_bits(uint16_t b) {
    bf16 h;
    h.bits = b;
    return h;
  }
};

}  // namespace scorch
