#pragma once
// Pooling for the micro runtime over [batch, channels, height, width] (1-D: [batch, channels, length]).
#include "scorch/micro/layer.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// Window, stride, zero padding and dilation per spatial dim (height, width); 1-D pools use the width's.
struct Pool2dOptions {
  uint32_t kernel[2] = {2, 2};
  uint32_t stride[2] = {2, 2};
  uint32_t padding[2] = {0, 0};
  uint32_t dilation[2] = {1, 1};
  /// Average pools: divide by the whole window, padding included (PyTorch's default), or by the inputs in it.
  bool count_include_pad = true;
};

/// Max or average over windows; 1-D pools are the 2-D ones with height 1.
class Pool final : public Layer {
 public:
  enum class Kind : uint8_t { max, average };
  Pool(Kind kind, uint32_t spatial, const Pool2dOptions& options) : kind_(kind), spatial_(spatial), o_(options) {}
  const char* name() const override;
  Status infer(const Shape* in, Shape& out) const override;
  Status forward(const Args& args) const override;

 private:
  Kind kind_;
  uint32_t spatial_;
  Pool2dOptions o_;
};

/// MaxPool2d(kernel, stride, padding): the hosted layer's defaults (stride = kernel).
Pool MaxPool2d(uint32_t kernel, uint32_t stride = 0, uint32_t padding = 0);
/// AvgPool2d(kernel, stride, padding, count_include_pad): stride 0 = kernel; padding divided in by default.
Pool AvgPool2d(uint32_t kernel, uint32_t stride = 0, uint32_t padding = 0, bool count_include_pad = true);
/// MaxPool1d over [batch, channels, length]: stride 0 = kernel.
Pool MaxPool1d(uint32_t kernel, uint32_t stride = 0, uint32_t padding = 0);
/// AvgPool1d over [batch, channels, length]: stride 0 = kernel.
Pool AvgPool1d(uint32_t kernel, uint32_t stride = 0, uint32_t padding = 0, bool count_include_pad = true);

/// Averages over PyTorch's adaptive windows to [batch, channels, out_h, out_w].
class AdaptiveAvgPool2d final : public Layer {
 public:
  AdaptiveAvgPool2d(uint32_t out_h, uint32_t out_w) : out_h_(out_h), out_w_(out_w) {}
  const char* name() const override { return "micro::AdaptiveAvgPool2d"; }
  Status infer(const Shape* in, Shape& out) const override;
  Status forward(const Args& args) const override;

 private:
  uint32_t out_h_, out_w_;
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
