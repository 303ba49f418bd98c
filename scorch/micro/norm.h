#pragma once
// Normalization for the micro runtime, reading the hosted layers' records.
#include "scorch/micro/layer.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// Inference batch norm over dim 1 of [batch, channels, ...]: (x − running_mean)/√(running_var + ε)·γ + β.
class BatchNorm final : public Layer {
 public:
  explicit BatchNorm(float epsilon = 1e-5f) : epsilon_(epsilon) {}
  /// Reads prefix.gamma, prefix.beta, prefix.running_mean and prefix.running_var ([channels], f32).
  Status load(const WeightTable& table, const char* prefix);
  const char* name() const override { return "micro::BatchNorm"; }
  Status infer(const Shape* in, Shape& out) const override;
  Status forward(const Args& args) const override;
  bool in_place() const override { return true; }

 private:
  const Weight *gamma_ = nullptr, *beta_ = nullptr, *mean_ = nullptr, *var_ = nullptr;
  float epsilon_;
};

/// (x − mean)/√(var + ε)·γ + β over the last dim.
class LayerNorm final : public Layer {
 public:
  explicit LayerNorm(float epsilon = 1e-5f) : epsilon_(epsilon) {}
  /// Reads prefix.gamma and prefix.beta ([d_model], f32; each optional).
  Status load(const WeightTable& table, const char* prefix);
  const char* name() const override { return "micro::LayerNorm"; }
  Status infer(const Shape* in, Shape& out) const override;
  Status forward(const Args& args) const override;
  bool in_place() const override { return true; }
  /// Normalizes rows of d_model values from x into y.
  void apply(const float* x, size_t rows, float* y) const;

 private:
  const Weight *gamma_ = nullptr, *beta_ = nullptr;
  uint32_t d_model_ = 0;
  float epsilon_;
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
