#pragma once
// The input domains of the registry's cases (tests/registry/*_cases.h); tests/support/registry.py
// draws each fixture input from its case's domain.
#include <cstdint>

namespace scorch::registry {

/// Where a case's inputs come from (tests/support/registry.py draws the fixtures' inputs).
enum class Domain : uint8_t {
  Normal,      ///< N(0, 1)
  Positive,    ///< uniform in [0.2, 2]
  Unit,        ///< uniform in (-0.9, 0.9): acos, asin, atanh
  AboveOne,    ///< uniform in [1.1, 3]: acosh
  Open01,      ///< uniform in (0.05, 0.95): logit
  NonZero,     ///< magnitudes in [0.3, 2], half negative: recip, abs, sign
  NonInteger,  ///< 3·N(0, 1), at least 0.05 from a whole number: floor, ceil, trunc
  NonHalf,     ///< 3·N(0, 1), at least 0.05 from a half-way point: round
};

}  // namespace scorch::registry
