#pragma once
// Activations and shape ops for the micro runtime.
#include "scorch/micro/layer.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// max(x, 0).
class Relu final : public Elementwise<Relu> {
 public:
  const char* name() const override { return "micro::Relu"; }
  static float apply(float x) { return x > 0.0f ? x : (x != x ? x : 0.0f); }
};

/// x·Φ(x) with the exact (erf) Φ, as the hosted Gelu's default.
class Gelu final : public Elementwise<Gelu> {
 public:
  const char* name() const override { return "micro::Gelu"; }
  static float apply(float x);
};

/// 1 / (1 + e^−x).
class Sigmoid final : public Elementwise<Sigmoid> {
 public:
  const char* name() const override { return "micro::Sigmoid"; }
  static float apply(float x);
};

/// tanh(x).
class Tanh final : public Elementwise<Tanh> {
 public:
  const char* name() const override { return "micro::Tanh"; }
  static float apply(float x);
};

/// softmax over the last dim (the row's maximum subtracted first).
class Softmax final : public Layer {
 public:
  const char* name() const override { return "micro::Softmax"; }
  Status infer(const Shape* in, Shape& out) const override;
  Status forward(const Args& args) const override;
  bool in_place() const override { return true; }
  /// Softmax of rows of n values, in place.
  static void apply(float* x, size_t rows, uint32_t n);
};

/// Dims from start_dim on merged into one (no copy).
class Flatten final : public Layer {
 public:
  explicit Flatten(uint32_t start_dim = 1) : start_dim_(start_dim) {}
  const char* name() const override { return "micro::Flatten"; }
  Status infer(const Shape* in, Shape& out) const override;
  bool is_view() const override { return true; }
  Status forward(const Args&) const override { return {}; }

 private:
  uint32_t start_dim_;
};

/// a + b, same shapes (residual connections).
class Add final : public Layer {
 public:
  const char* name() const override { return "micro::Add"; }
  uint32_t arity() const override { return 2; }
  Status infer(const Shape* in, Shape& out) const override;
  Status forward(const Args& args) const override;
  bool in_place() const override { return true; }
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
