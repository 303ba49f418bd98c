#pragma once
// Self-attention for the micro runtime, reading the hosted MultiHeadAttention's record (query, key, value and output
// Linear layers).
#include "scorch/micro/linear.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// softmax(q·kᵀ/√d_head)·v per head over [batch, seq, d_model], then the output projection; causal hides later
/// positions.
class MultiHeadAttention final : public Layer {
 public:
  explicit MultiHeadAttention(uint32_t n_heads, bool causal = false) : n_heads_(n_heads), causal_(causal) {}
  /// Reads prefix.query, prefix.key, prefix.value and prefix.output; checks d_model and n_heads.
  Status load(const WeightTable& table, const char* prefix);
  const char* name() const override { return "micro::MultiHeadAttention"; }
  Status infer(const Shape* in, Shape& out) const override;
  uint64_t scratch_bytes(const Shape* in) const override;
  Status forward(const Args& args) const override;

 private:
  void attend(const float* q, const float* k, const float* v, uint32_t batch, uint32_t seq, float* context,
              float* scores) const;
  Linear query_, key_, value_, output_;
  uint32_t n_heads_;
  bool causal_;
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
