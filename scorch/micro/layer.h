#pragma once
// The micro runtime's layer interface: a Graph node computes its output shape, asks for scratch bytes, then runs
// into buffers the graph's arena plan gives it. Layers hold pointers into a WeightTable; none allocates.
#include <cstddef>
#include <cstdint>

#include "scorch/micro/status.h"
#include "scorch/micro/weights.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// What forward() reads and writes: arity() inputs, one output, scratch of scratch_bytes(inputs) bytes (16-aligned).
struct Args {
  const float* in[2] = {};
  Shape in_shape[2];
  float* out = nullptr;
  Shape out_shape;
  void* scratch = nullptr;
};

/// An op of a Graph. Layers live as long as the graphs that use them.
class Layer {
 public:
  /// The layer's name in messages ("micro::Linear").
  virtual const char* name() const = 0;
  /// Inputs taken (1 or 2).
  virtual uint32_t arity() const { return 1; }
  /// out = the output shape for inputs in (arity() of them), or an error naming the layer and the shapes.
  virtual Status infer(const Shape* in, Shape& out) const = 0;
  /// Scratch bytes forward() needs for inputs in.
  virtual uint64_t scratch_bytes(const Shape* in) const {
    (void)in;
    return 0;
  }
  /// True when the output is the input's values under another shape (no copy: Flatten).
  virtual bool is_view() const { return false; }
  /// True when forward() may write its output over its first input (each value read before it is written).
  virtual bool in_place() const { return false; }
  /// Computes args.out from args.in; shapes are those infer() accepted. Errors only for values (an id out of range).
  virtual Status forward(const Args& args) const = 0;

 protected:
  Layer() = default;
  Layer(const Layer&) = default;
  Layer& operator=(const Layer&) = default;
  ~Layer() = default;
};

/// Outputs of a window (kernel taps dilation apart) sliding by stride over in values padded on each side; 0 when
/// the window does not fit or kernel or stride is 0.
inline uint32_t window_outputs(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t padding, uint32_t dilation) {
  int64_t span = int64_t(dilation) * (int64_t(kernel) - 1) + 1, padded = int64_t(in) + 2 * int64_t(padding);
  return padded < span || stride == 0 || kernel == 0 ? 0 : uint32_t((padded - span) / stride + 1);
}

/// Layers that map every element on its own with F::apply (activations): output shape = input shape, computed in
/// place when the graph allows.
template <class F> class Elementwise : public Layer {
 public:
  Status infer(const Shape* in, Shape& out) const override {
    out = in[0];
    return {};
  }
  Status forward(const Args& args) const override {
    size_t n = args.in_shape[0].numel();
    for (size_t i = 0; i < n; ++i) args.out[i] = F::apply(args.in[0][i]);
    return {};
  }
  bool in_place() const override { return true; }

 protected:
  ~Elementwise() = default;
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
