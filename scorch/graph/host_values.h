#pragma once
// Moving values between the compiled plan's arena and the interpreter's values on the Cpu stack with one copy and no
// allocation beyond the Cpu backend's recycled blocks (the generic path, through TensorData, copies twice).
#include <cstddef>

#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"
#include "scorch/dyn/dyn.h"
#include "scorch/import/onnx/runtime/value.h"

namespace scorch::graph {

/// Writes tensor value v's elements row-major into dst (bytes long: v's element count times its dtype's size).
void copy_out(const onnx::Value<Dyn>& v, std::byte* dst, size_t bytes);
/// A tensor value on device (the cpu stack) holding a copy of src's row-major elements of shape and dtype.
onnx::Value<Dyn> copy_in(const std::byte* src, const Shape& shape, DType dtype, const dyn::DynDevice& device);

}  // namespace scorch::graph
