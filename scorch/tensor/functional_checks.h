#pragma once
// Argument checks of the functional ops (scorch::functional): they throw ShapeError, DTypeError
// or ValueError naming the op, the shapes and the offending option.
#include <array>
#include <optional>
#include <utility>

#include "scorch/backend/module_options.h"
#include "scorch/core/dtype.h"
#include "scorch/core/shape.h"

namespace scorch::check {

/// x [batch, in, spatial...] and weight fit a (transposed) convolution with spec, bias has one
/// value per output channel, and the output is non-empty; dtypes are float and equal.
void conv(const char* op, const Shape& x, DType xd, const Shape& weight, DType wd, const std::optional<Shape>& bias,
          const ConvSpec& spec, bool transposed);
/// x fits a pooling (or, with unfold, an unfold) window spec and the output is non-empty.
void pool(const char* op, const Shape& x, DType xd, const PoolSpec& spec, bool unfold = false);
/// x has one output size per spatial dim, each at least 1.
void adaptive(const char* op, const Shape& x, DType xd, const SpatialDims& output_size);
/// x is [batch, channels, h, w] and output sizes are at least 1.
void interpolate(const char* op, const Shape& x, DType xd, const InterpolateSpec& spec);
/// x [batch, channels·kh·kw, windows] folds into output_size with spec.
void fold(const char* op, const Shape& x, DType xd, const SpatialDims& output_size, const PoolSpec& spec);
/// q, k, v are [batch, heads, seq, d] with matching dims and mask broadcasts to the scores.
void attention(const Shape& q, const Shape& k, const Shape& v, const std::optional<Shape>& mask, DType qd, DType kd,
               DType vd);
/// Attention dropout's probability is in [0, 1).
void attention_dropout(double prob);
/// logits [rows, classes] with at least one class and the per-row operand `name` [rows]; names op.
void cross_entropy(const char* op, const Shape& logits, const Shape& rows, const char* name = "targets");
/// Throws unless out and grad are attention's output for q and v ([batch, heads, seq_q, dv]) and
/// logsumexp is [batch, heads, seq_q].
void attention_backward(const Shape& q, const Shape& v, const Shape& out, const Shape& logsumexp, const Shape& grad);
/// adam_update's operands: the gradient and both moments (in that order) of the parameter's shape and float dtype;
/// β₁, β₂ in [0, 1); step ≥ 1.
void adam_update(const Shape& param, DType dtype, const std::array<std::pair<Shape, DType>, 3>& others, double beta_1,
                 double beta_2, double step);
/// Throws unless x is a float tensor of rank >= 1 and gamma / beta (when given) are [x's last dim] of
/// x's dtype; grad (when given) has x's shape. op names the caller.
void norm(const char* op, const Shape& x, DType dtype, const std::optional<Shape>& gamma,
          const std::optional<Shape>& beta, const std::optional<Shape>& grad);
/// x [..., k] (rank >= 1), weight [k, n] and bias [n] (when given), all of x's float dtype; op names the caller.
void linear(const char* op, const Shape& x, DType xd, const Shape& weight, DType wd, const std::optional<Shape>& bias,
            DType bd);
/// linear_backward's operand `what` (output, grad) is [rows, n] = expected in x's dtype.
void linear_result(const char* op, const char* what, const Shape& expected, DType xd, const Shape& shape, DType dtype);
/// Throws DTypeError unless a parameter (gamma, beta) has the input's dtype.
void param_dtype(const char* op, const char* what, DType input, DType param);
/// The spatial dims of a [batch, channels, spatial...] shape.
SpatialDims spatial_of(const Shape& s);
/// The output shape of a checked (transposed) convolution.
Shape conv_output(const Shape& x, const Shape& weight, const ConvSpec& spec, bool transposed);
/// The output shape of a checked pooling.
Shape pool_output(const Shape& x, const PoolSpec& spec);
/// The output shape of adaptive pooling or interpolation: x's batch and channels, then size.
Shape resized(const Shape& x, const SpatialDims& size);
/// A backward helper's output gradient has the forward output's shape.
void grad_shape(const char* op, const Shape& expected, const Shape& grad);
/// Two shapes are equal.
void same_shape(const char* op, const Shape& a, const Shape& b);

}  // namespace scorch::check
