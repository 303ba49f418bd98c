#pragma once
// Rank-erased options and multi-tensor results of the module ops (convolution, pooling, interpolation,
// unfold/fold, attention, normalization).
// Spatial options hold one value per spatial dim (1 to 3 of them), outermost first.
#include <cstddef>
#include <optional>
#include <vector>

namespace scorch {

/// One value per spatial dim.
using SpatialDims = std::vector<size_t>;

/// Convolution and transposed convolution: stride, zero padding, dilation, output padding
/// (transposed only; extra size added at the end of each dim) and channel groups.
struct ConvSpec {
  SpatialDims stride, padding, dilation, padding_out;
  size_t groups = 1;
};

/// Pooling, unfold and fold windows: kernel size, stride, padding, dilation; ceil_mode rounds
/// the output size up; count_include_pad makes average pools divide by the full window.
struct PoolSpec {
  SpatialDims kernel, stride, padding, dilation;
  bool ceil_mode = false;
  bool count_include_pad = true;
};

/// How interpolate samples the input.
enum class InterpolateMode { Nearest, Bilinear, Bicubic };

/// Interpolation to output_size (one per spatial dim); align_corners maps the corner pixels'
/// centres onto each other, as in PyTorch.
struct InterpolateSpec {
  SpatialDims output_size;
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;
};

/// Gradients of a convolution with respect to its input, weight and (when it has one) bias.
template <class T> struct ConvGradients {
  T x, weight;
  std::optional<T> bias;
};

/// Gradients of scaled dot-product attention with respect to q, k and v.
template <class T> struct AttentionGradients {
  T q, k, v;
};

/// Gradients of a normalization with respect to its input and, when it has them, its scale
/// (gamma) and shift (beta).
template <class T> struct NormGradients {
  T x;
  std::optional<T> gamma, beta;
};

/// One Adam/AdamW step of a parameter: the updated parameter and its two moments.
template <class T> struct AdamUpdate {
  T param, moment_1, moment_2;
};

}  // namespace scorch
