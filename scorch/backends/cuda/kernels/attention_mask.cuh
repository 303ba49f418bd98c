#pragma once
// The attention mask as the Cuda attention kernels read it (nvcc only): a bool tensor broadcast to the
// scores [batch, heads, seq_q, seq_k], read through its strides (0 where it broadcasts), and the causal flag
// (key j hidden from query i when j > i). true = masked.
#include <optional>

#include "scorch/backends/cuda/cuda_tensor.h"

namespace scorch::backends::cuda::kernels {

/// Where a query row's mask values start and how far apart its keys are.
struct MaskRows {
  const bool* data = nullptr;
  int64_t batch = 0, heads = 0, query = 0, key = 0;  // strides
  int64_t n_heads = 1, n_queries = 1;
  bool causal = false;
  /// The mask values of flat row r = (batch · heads + head) · seq_q + query; nullptr without a mask.
  __device__ const bool* row(int64_t r) const {
    if (!data) return nullptr;
    int64_t i = r % n_queries, bh = r / n_queries;
    return data + (bh / n_heads) * batch + (bh % n_heads) * heads + i * query;
  }
  /// True where the mask tensor hides key j of a row (from row()).
  __device__ bool masked(const bool* row_values, int64_t j) const { return row_values && row_values[j * key]; }
  /// True where key j is hidden from query i of a row (mask values row_values).
  __device__ bool hides(const bool* row_values, int64_t i, int64_t j) const {
    return (causal && j > i) || masked(row_values, j);
  }
};

/// The mask's rows for scores of shape [batch, heads, seq_q, seq_k].
inline MaskRows mask_rows(const std::optional<CudaTensor>& mask, const Shape& scores, bool causal) {
  MaskRows m{};
  m.n_heads = static_cast<int64_t>(scores[1]);
  m.n_queries = static_cast<int64_t>(scores[2]);
  m.causal = causal;
  if (!mask) return m;
  Strides s = broadcast_strides(*mask, scores);
  m.data = mask->data<bool>();
  m.batch = s[0], m.heads = s[1], m.query = s[2], m.key = s[3];
  return m;
}

}  // namespace scorch::backends::cuda::kernels
