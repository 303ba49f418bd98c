#pragma once
// Linear and Embedding for the micro runtime, reading the hosted layers' records: Linear's weight is [d_input,
// d_output] (f32, or int8 scaled per output channel), Embedding's [vocab, d_model].
#include "scorch/micro/layer.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// y = x·W + b over the last dim. An int8 weight quantizes each input to uint8 (scale and offset from the whole
/// input's range, as the hosted dynamic quantized Linear) and multiplies in integers.
class Linear final : public Layer {
 public:
  /// Reads prefix.weight and prefix.bias (optional); checks their shapes.
  Status load(const WeightTable& table, const char* prefix);
  const char* name() const override { return "micro::Linear"; }
  Status infer(const Shape* in, Shape& out) const override;
  uint64_t scratch_bytes(const Shape* in) const override;
  Status forward(const Args& args) const override;
  /// y[rows, d_output] = x[rows, d_input]·W + b; scratch holds scratch_bytes for those rows.
  void apply(const float* x, size_t rows, float* y, void* scratch) const;
  uint32_t d_input() const { return d_input_; }
  uint32_t d_output() const { return d_output_; }

 private:
  void apply_int8(const float* x, size_t rows, float* y, void* scratch) const;
  const Weight* weight_ = nullptr;
  const Weight* bias_ = nullptr;
  uint32_t d_input_ = 0, d_output_ = 0;
};

/// Rows of the weight for token ids: [..., n] ids (as floats) → [..., n, d_model].
class Embedding final : public Layer {
 public:
  /// Reads prefix.weight ([vocab, d_model]: f32, or int8 scaled per column).
  Status load(const WeightTable& table, const char* prefix);
  const char* name() const override { return "micro::Embedding"; }
  Status infer(const Shape* in, Shape& out) const override;
  /// An id that is not an integer in [0, vocab) is an error naming it.
  Status forward(const Args& args) const override;

 private:
  const Weight* weight_ = nullptr;
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
