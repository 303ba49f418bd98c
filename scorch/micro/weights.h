#pragma once
// Weights compiled into flash: a table of named constant arrays (f32, or int8 with a float scale per channel), as
// scorch-micro-export writes it.
#include <cstddef>
#include <cstdint>

#include "scorch/micro/status.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// How a weight's values are stored.
enum class DType : uint8_t { f32, i8 };

/// One named array: f32 values, or int8 values whose channel c along axis is scaled by scales[c] (symmetric).
struct Weight {
  const char* name;
  DType dtype;
  Shape shape;
  const void* data;
  const float* scales;
  uint32_t axis;
  const float* f32() const { return static_cast<const float*>(data); }
  const int8_t* i8() const { return static_cast<const int8_t*>(data); }
  /// Element i as a float (dequantized for int8).
  float at(size_t i) const;
};

/// The weights of a model, looked up by dotted name ("conv1.weight").
struct WeightTable {
  const Weight* entries = nullptr;
  size_t count = 0;
  /// The entry called name, or nullptr.
  const Weight* find(const char* name) const;
  /// *out = the entry "prefix.leaf"; a missing entry is an error naming op and key unless optional (*out = nullptr).
  Status get(const char* op, const char* prefix, const char* leaf, const Weight** out, bool optional = false) const;
};

/// buffer = "prefix.leaf" (leaf alone for an empty prefix); false, buffer unspecified, when it does not fit in size.
bool join_key(const char* prefix, const char* leaf, char* buffer, size_t size);

/// ok when w's rank is rank, it is f32 (or int8 scaled along axis, when int8_axis ≥ 0); an error naming op otherwise.
Status check_weight(const char* op, const Weight& w, uint32_t rank, int32_t int8_axis);

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
