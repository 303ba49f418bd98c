#include "scorch/nn/conv.h"

namespace scorch::nn::detail {

void check_groups(const char* op, size_t in, size_t out, size_t groups) {
  if (groups == 0 || in % groups != 0 || out % groups != 0)
    throw ValueError(op, "channels [" + std::to_string(in) + ", " + std::to_string(out) + "] do not split into " + std::to_string(groups) + " groups");
}

}  // namespace scorch::nn::detail

#include "scorch/nn/resample.h"

namespace scorch::nn::detail {

InterpolateMode interpolate_mode(const char* op, InterpolateModeConfig mode) {
  switch (mode) {
    case InterpolateModeConfig::Nearest: return InterpolateMode::Nearest;
    case InterpolateModeConfig::Linear: return InterpolateMode::Bilinear;
    case InterpolateModeConfig::Cubic: return InterpolateMode::Bicubic;
    default: throw ValueError(op, "interpolation mode " + std::string(::scorch::detail::enum_name(mode)) + " has no kernel yet (Nearest, Linear, Cubic do)");
  }
}

size_t resized_dim(const char* op, size_t input, std::optional<size_t> size, std::optional<double> scale) {
  if (size) return *size;
  double s = scale.value_or(1.0);
  if (!(s > 0)) throw ValueError(op, "scale_factor must be positive, got " + std::to_string(s));
  return static_cast<size_t>(std::floor(static_cast<double>(input) * s));
}

}  // namespace scorch::nn::detail

#include "scorch/nn/rnn.h"

namespace scorch::nn::detail {

void check_rnn_input(const char* op, const Shape& x, size_t d_input) {
  if (x.rank() != 3 || x[2] != d_input) throw ShapeError(op, "input " + x.to_string() + " must be [batch, seq, " + std::to_string(d_input) + "] (or [seq, batch, ...])");
}

}  // namespace scorch::nn::detail

#include "scorch/nn/loss.h"

namespace scorch::nn::detail {

void check_same(const char* op, const Shape& a, const Shape& b) {
  if (a != b) throw ShapeError(op, "input " + a.to_string() + " and target " + b.to_string() + " differ");
}

}  // namespace scorch::nn::detail

#include "scorch/nn/ctc.h"

namespace scorch::nn {

void CtcLoss::check(const Shape& lp, const Shape& targets, const Shape& in_len, const Shape& tgt_len) const {
  const char* op = "CtcLoss::forward";
  if (targets.rank() != 2 || targets[0] != lp[1]) throw ShapeError(op, "targets " + targets.to_string() + " must be [batch, S] for log_probs " + lp.to_string());
  if (in_len != Shape{lp[1]} || tgt_len != Shape{lp[1]})
    throw ShapeError(op, "input_lengths " + in_len.to_string() + " and target_lengths " + tgt_len.to_string() + " must be [" + std::to_string(lp[1]) + "]");
  if (blank >= lp[2]) throw ValueError(op, "blank " + std::to_string(blank) + " is not one of " + std::to_string(lp[2]) + " classes");
}

}  // namespace scorch::nn
