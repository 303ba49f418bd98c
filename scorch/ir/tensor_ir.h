#pragma once
// The operands of the op IR (gen/ir_records.h): tensors by id with their shape and dtype, devices
// by name. Plain data, so records copy, compare and serialize without a backend.
#include <cstdint>
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch::ir {

/// A tensor operand or result: a stream-unique id (0 = none), its shape and dtype.
struct TensorIr {
  uint64_t id = 0;
  Shape shape;
  DType dtype = DType::F32;
  friend bool operator==(const TensorIr&, const TensorIr&) = default;
};

/// A device operand, by its to_string() ("Cpu", "Cuda(0)").
struct DeviceIr {
  std::string name;
  friend bool operator==(const DeviceIr&, const DeviceIr&) = default;
};

}  // namespace scorch::ir
