#pragma once
// The static memory plan of a compiled model: every buffer's lifetime (the steps from the one that writes it to the
// last that reads it) is known before the first run, so all of them are placed in one arena, and buffers whose
// lifetimes do not overlap share bytes.
#include <cstddef>
#include <vector>

namespace scorch::graph {

/// A buffer the plan needs: its size and the first and last step (inclusive) during which it holds data.
struct BufferLife {
  size_t bytes = 0;
  size_t first = 0, last = 0;
};

/// Where each buffer lives in the arena and how large the arena is.
struct ArenaPlan {
  std::vector<size_t> offsets;  ///< one per buffer, in the order given; multiples of the alignment
  size_t bytes = 0;             ///< the arena's size
};

/// Places buffers greedily, largest first, each at the lowest aligned offset that overlaps no placed buffer alive
/// at the same time (TFLite's "greedy by size"). Buffers with overlapping lifetimes never share a byte.
ArenaPlan plan_arena(const std::vector<BufferLife>& buffers, size_t alignment = 64);

}  // namespace scorch::graph
