#pragma once
// Layers that rearrange or resample spatial data: Interpolate1d/2d, Unfold4d/Fold4d (im2col,
// col2im), PixelShuffle and PixelUnshuffle. No parameters.
#include <cmath>
#include <optional>

#include "scorch/module/module.h"
#include "scorch/nn/padding.h"
#include "scorch/tensor/functional.h"

namespace scorch::nn {

/// Burn's interpolation modes: Nearest, Linear and Cubic run the backend's interpolate kernel;
/// NearestExact (PyTorch's 'nearest-exact') and Lanczos (3 lobes) resample by two small matrix products.
SCORCH_ENUM(InterpolateModeConfig, Nearest, NearestExact, Linear, Cubic, Lanczos)

namespace detail {
/// The tensor-level mode for a kernel mode (Nearest, Linear, Cubic).
InterpolateMode interpolate_mode(InterpolateModeConfig mode);
/// The [out, in] matrix resampling one dim for NearestExact or Lanczos (rows sum to 1).
std::vector<float> resample_matrix(InterpolateModeConfig mode, size_t in, size_t out, bool align_corners);
/// x resampled along dim (2 or 3 of a rank-4 tensor) by resample_matrix.
template <class B> Tensor<B, 4> resample_dim(const Tensor<B, 4>& x, int64_t dim, size_t out, InterpolateModeConfig mode,
                                             bool align_corners) {
  size_t in = x.shape()[static_cast<size_t>(dim)];
  auto m = Tensor<B, 2>::from_data(
      TensorData(resample_matrix(mode, in, out, align_corners), {out, in}).convert(x.dtype()), x.device());
  if (dim == 3) return x.matmul(m.transpose().template unsqueeze<4>());
  return m.template unsqueeze<4>().matmul(x);
}
/// The output size of one dim: the given size, or floor(input · scale).
size_t resized_dim(const char* op, size_t input, std::optional<size_t> size, std::optional<double> scale);
}  // namespace detail

/// Resampling settings: output_size or scale_factor (per spatial dim), the mode and corner alignment.
template <size_t N> struct InterpolateConfig {
  std::optional<std::array<size_t, N>> output_size;
  std::optional<std::array<double, N>> scale_factor;
  InterpolateModeConfig mode = InterpolateModeConfig::Nearest;
  bool align_corners = true;
  SCORCH_CONFIG(InterpolateConfig, (), (output_size, scale_factor, mode, align_corners))
  auto init() const;
};

/// Resamples [batch, channels, spatial...] (N = 1 or 2 spatial dims).
template <size_t N> struct Interpolate {
  std::optional<std::array<size_t, N>> output_size;
  std::optional<std::array<double, N>> scale_factor;
  InterpolateModeConfig mode = InterpolateModeConfig::Nearest;
  bool align_corners = true;
  SCORCH_MODULE(Interpolate, output_size, scale_factor, mode, align_corners)

  template <class B> Tensor<B, N + 2> forward(const Tensor<B, N + 2>& x) const {
    std::array<size_t, 2> size{1, 1};
    for (size_t i = 0; i < N; ++i)
      size[2 - N + i] = detail::resized_dim("Interpolate::forward", x.shape()[i + 2],
                                            output_size ? std::optional((*output_size)[i]) : std::nullopt,
                                            scale_factor ? std::optional((*scale_factor)[i]) : std::nullopt);
    Tensor<B, 4> x4;
    if constexpr (N == 2) x4 = x;
    else x4 = x.template unsqueeze_dim<4>(2);
    Tensor<B, 4> y;
    if (mode == InterpolateModeConfig::NearestExact || mode == InterpolateModeConfig::Lanczos) {
      y = detail::resample_dim(x4, 3, size[1], mode, align_corners);
      if (N == 2) y = detail::resample_dim(y, 2, size[0], mode, align_corners);
    } else {
      y = functional::interpolate(x4, size,
                                  functional::InterpolateOptions{detail::interpolate_mode(mode), align_corners});
    }
    if constexpr (N == 2) return y;
    else return y.template squeeze_dim<3>(2);
  }
};

template <size_t N> auto InterpolateConfig<N>::init() const {
  if (!output_size && !scale_factor) throw ValueError("InterpolateConfig::init", "needs output_size or scale_factor");
  return Interpolate<N>{output_size, scale_factor, mode, align_corners};
}
using Interpolate1dConfig = InterpolateConfig<1>;
using Interpolate2dConfig = InterpolateConfig<2>;
using Interpolate1d = Interpolate<1>;
using Interpolate2d = Interpolate<2>;

struct Unfold4d;
struct Fold4d;

/// Sliding-window settings shared by Unfold4d and Fold4d.
struct Unfold4dConfig {
  std::array<size_t, 2> kernel_size;
  std::array<size_t, 2> stride{1, 1}, dilation{1, 1}, padding{0, 0};
  SCORCH_CONFIG(Unfold4dConfig, (kernel_size), (stride, dilation, padding))
  Unfold4d init() const;
};
/// [batch, channels, h, w] → [batch, channels·kh·kw, windows] (im2col).
struct Unfold4d {
  std::array<size_t, 2> kernel_size{}, stride{}, dilation{}, padding{};
  SCORCH_MODULE(Unfold4d, kernel_size, stride, dilation, padding)
  template <class B> Tensor<B, 3> forward(const Tensor<B, 4>& x) const {
    return functional::unfold4d(x, kernel_size, {stride, padding, dilation});
  }
};
inline Unfold4d Unfold4dConfig::init() const { return {kernel_size, stride, dilation, padding}; }

/// Fold settings: the output image size and the window.
struct Fold4dConfig {
  std::array<size_t, 2> output_size, kernel_size;
  std::array<size_t, 2> stride{1, 1}, dilation{1, 1}, padding{0, 0};
  SCORCH_CONFIG(Fold4dConfig, (output_size, kernel_size), (stride, dilation, padding))
  Fold4d init() const;
};
/// [batch, channels·kh·kw, windows] → [batch, channels, h, w], summing overlaps (col2im).
struct Fold4d {
  std::array<size_t, 2> output_size{}, kernel_size{}, stride{}, dilation{}, padding{};
  SCORCH_MODULE(Fold4d, output_size, kernel_size, stride, dilation, padding)
  template <class B> Tensor<B, 4> forward(const Tensor<B, 3>& x) const {
    return functional::fold4d(x, output_size, kernel_size, {stride, padding, dilation});
  }
};
inline Fold4d Fold4dConfig::init() const { return {output_size, kernel_size, stride, dilation, padding}; }

/// [b, c·r², h, w] → [b, c, h·r, w·r].
struct PixelShuffle {
  size_t upscale_factor = 1;
  SCORCH_MODULE(PixelShuffle, upscale_factor)
  template <class B> Tensor<B, 4> forward(const Tensor<B, 4>& x) const {
    auto [b, c, h, w] = x.dims();
    size_t r = upscale_factor;
    if (c % (r * r) != 0)
      throw ShapeError("PixelShuffle::forward",
                       "channels of " + x.shape().to_string() + " must divide by " + std::to_string(r * r));
    auto y = x.template reshape<6>({b, c / (r * r), r, r, h, w}).permute({0, 1, 4, 2, 5, 3});
    return y.template reshape<4>({b, c / (r * r), h * r, w * r});
  }
};

/// [b, c, h·r, w·r] → [b, c·r², h, w].
struct PixelUnshuffle {
  size_t downscale_factor = 1;
  SCORCH_MODULE(PixelUnshuffle, downscale_factor)
  template <class B> Tensor<B, 4> forward(const Tensor<B, 4>& x) const {
    auto [b, c, h, w] = x.dims();
    size_t r = downscale_factor;
    if (h % r != 0 || w % r != 0)
      throw ShapeError("PixelUnshuffle::forward",
                       "height and width of " + x.shape().to_string() + " must divide by " + std::to_string(r));
    auto y = x.template reshape<6>({b, c, h / r, r, w / r, r}).permute({0, 1, 3, 5, 2, 4});
    return y.template reshape<4>({b, c * r * r, h / r, w / r});
  }
};

/// Cosine similarity along dim: x·y / max(‖x‖·‖y‖, eps).
struct CosineSimilarity {
  int64_t dim = 1;
  double eps = 1e-8;
  SCORCH_MODULE(CosineSimilarity, dim, eps)
  template <class B, size_t D> Tensor<B, D> forward(const Tensor<B, D>& x, const Tensor<B, D>& y) const {
    auto dot = (x * y).sum_dim(dim);
    auto norms = (x.square().sum_dim(dim) * y.square().sum_dim(dim)).sqrt().clamp_min(eps);
    return dot / norms;
  }
};

/// p-norm distance ‖x − y + eps‖_p over the last dim (kept).
struct PairwiseDistance {
  double p = 2.0, eps = 1e-6;
  SCORCH_MODULE(PairwiseDistance, p, eps)
  template <class B, size_t D> Tensor<B, D> forward(const Tensor<B, D>& x, const Tensor<B, D>& y) const {
    auto diff = (x - y + eps).abs();
    return diff.powf_scalar(p).sum_dim(D - 1).powf_scalar(1.0 / p);
  }
};

}  // namespace scorch::nn
