#pragma once
// Rank-erased options and multi-tensor results of the module ops (convolution, pooling, interpolation,
// unfold/fold, attention, normalization).
// Spatial options hold one value per spatial dim (1 to 3 of them), outermost first.
#include <cstddef>
#include <cstdint>
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

/// Dropout of attention's probabilities: each is zeroed with probability prob and the others scaled by
/// 1 / (1 − prob). The mask is a pure function of seed and the element's place (backend/attention_dropout.h), so a
/// backward, and every backend, draws the same one.
struct AttentionDropout {
  double prob = 0.0;
  uint64_t seed = 0;
};

/// One Adam/AdamW step's settings: weight_decay is L2 on the gradient, or decoupled (AdamW) θ·(1 − lr·wd);
/// step is the 1-based count that the bias corrections 1 − βᵗ read.
struct AdamStep {
  double lr = 0, beta_1 = 0.9, beta_2 = 0.999, epsilon = 1e-8, weight_decay = 0;
  bool decoupled = false;
  double step = 1;
};

/// One SGD step's settings: g + weight_decay·θ; with momentum, v = momentum·v + (1 − dampening)·g (v = g when the
/// parameters have no velocity yet), stepping along v, or g + momentum·v when nesterov.
struct SgdStep {
  double lr = 0, weight_decay = 0, momentum = 0, dampening = 0;
  bool with_momentum = false, nesterov = false;
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

/// One SGD step of a parameter: the updated parameter and, with momentum, its velocity.
template <class T> struct SgdUpdate {
  T param;
  std::optional<T> velocity;
};

}  // namespace scorch
