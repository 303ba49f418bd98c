#pragma once
// Gradient clipping: by value (clamp each element to [−t, t]) or by norm (scale a parameter's
// gradient so its L2 norm is at most t; the norm is per parameter tensor, as in Burn).
#include <array>
#include <limits>

#include "scorch/backend/graph_capture.h"
#include "scorch/module/config.h"
#include "scorch/tensor/tensor.h"

namespace scorch::optim {

SCORCH_ENUM(ClipKind, Value, Norm)

/// Clipping settings for an optimizer.
struct GradientClippingConfig {
  ClipKind kind = ClipKind::Norm;
  double threshold = 1.0;
  SCORCH_CONFIG(GradientClippingConfig, (), (kind, threshold))
  static GradientClippingConfig value(double t) {
    return GradientClippingConfig().with_kind(ClipKind::Value).with_threshold(t);
  }
  static GradientClippingConfig norm(double t) {
    return GradientClippingConfig().with_kind(ClipKind::Norm).with_threshold(t);
  }

  /// The clipped gradient.
  template <class B, size_t D> Tensor<B, D> clip(const Tensor<B, D>& grad) const {
    if (kind == ClipKind::Value) return grad.clamp(-threshold, threshold);
    if (step_capture_active()) return clip_on_device(grad);
    double norm = grad.square().sum().sqrt().into_scalar().to_double();
    double scale = std::min(1.0, threshold / (norm + std::numeric_limits<float>::min()));
    return scale < 1.0 ? grad * scale : grad;
  }

 private:
  /// The norm clip computed on the device (no host read, so a captured step can hold it).
  template <class B, size_t D> Tensor<B, D> clip_on_device(const Tensor<B, D>& grad) const {
    std::array<size_t, D> ones;
    ones.fill(1);
    auto norm = grad.square().sum().sqrt().template reshape<D>(ones);
    auto scale = ((norm + std::numeric_limits<float>::min()).recip() * threshold).clamp_max(1.0);
    return grad * scale;
  }
};

}  // namespace scorch::optim
