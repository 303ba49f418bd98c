#pragma once
// Conv1d and Conv2d for the micro runtime (the hosted Conv's weight [out, in/groups, kernel...] and bias [out]; f32
// or int8 scaled per output channel, whose input is quantized dynamically as the hosted quant::conv2d's patches).
#include "scorch/micro/layer.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// Stride, zero padding (each side) and dilation per spatial dim (height, width), and groups.
struct Conv2dOptions {
  uint32_t stride[2] = {1, 1};
  uint32_t padding[2] = {0, 0};
  uint32_t dilation[2] = {1, 1};
  uint32_t groups = 1;
};

/// Sizes of one convolution over [batch, channels, height, width] (a 1-D one has height 1).
struct ConvGeometry {
  uint32_t batch, in_channels, height, width, out_channels, kernel_h, kernel_w, out_h, out_w;
};

/// [batch, in, h, w] → [batch, out, h', w'].
class Conv2d final : public Layer {
 public:
  /// A layer with these options; load() then reads its weights.
  explicit Conv2d(const Conv2dOptions& options = {}) : options_(options) {}
  /// Reads prefix.weight ([out, in/groups, kh, kw]) and prefix.bias (optional).
  Status load(const WeightTable& table, const char* prefix);
  const char* name() const override { return spatial_ == 1 ? "micro::Conv1d" : "micro::Conv2d"; }
  Status infer(const Shape* in, Shape& out) const override;
  uint64_t scratch_bytes(const Shape* in) const override;
  Status forward(const Args& args) const override;

 private:
  friend class Conv1d;
  /// A Conv1d: a Conv2d whose input, output and weight drop the height.
  Conv2d(const Conv2dOptions& options, uint32_t spatial) : options_(options), spatial_(spatial) {}
  ConvGeometry geometry(const Shape& in) const;
  void run_f32(const ConvGeometry& g, const float* x, float* y) const;
  void run_int8(const ConvGeometry& g, const float* x, float* y, int16_t* xq) const;
  Conv2dOptions options_;
  uint32_t spatial_ = 2;
  const Weight* weight_ = nullptr;
  const Weight* bias_ = nullptr;
};

/// Stride, zero padding, dilation and groups of a Conv1d.
struct Conv1dOptions {
  uint32_t stride = 1, padding = 0, dilation = 1, groups = 1;
};

/// [batch, in, length] → [batch, out, length'] (weight [out, in/groups, k]).
class Conv1d final {
 public:
  explicit Conv1d(const Conv1dOptions& o = {})
      : conv_(Conv2dOptions{{1, o.stride}, {0, o.padding}, {1, o.dilation}, o.groups}, 1) {}
  Status load(const WeightTable& table, const char* prefix) { return conv_.load(table, prefix); }
  /// The layer to add to a Graph.
  const Layer& layer() const { return conv_; }
  operator const Layer&() const { return conv_; }

 private:
  Conv2d conv_;
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
