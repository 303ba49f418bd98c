#pragma once
// The compiled plan's own host kernel for ONNX's Where (the attention mask of exported transformers), which oneDNN
// has no primitive for: out = cond ? x : y with broadcasting, read in place from the arena.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scorch/core/shape.h"

namespace scorch::graph {

/// An operand read with strides (in elements) over the output's dims: 0 along the dims it is broadcast on.
struct StridedOperand {
  const void* data = nullptr;
  std::vector<int64_t> strides;
};

/// operand's strides over out (its dims right-aligned to out's; a size-1 dim broadcast).
std::vector<int64_t> broadcast_strides(const Shape& operand, const Shape& out);

/// out (row-major, of shape) [i] = cond[i] ? x[i] : y[i]; cond holds bools, x and y floats.
void select(const Shape& shape, const StridedOperand& cond, const StridedOperand& x, const StridedOperand& y,
            float* out);

}  // namespace scorch::graph
