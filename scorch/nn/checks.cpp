#include "scorch/nn/conv.h"

namespace scorch::nn::detail {

void check_groups(const char* op, size_t in, size_t out, size_t groups) {
  if (groups == 0 || in % groups != 0 || out % groups != 0)
    throw ValueError(op, "channels [" + std::to_string(in) + ", " + std::to_string(out) + "] do not split into " +
                             std::to_string(groups) + " groups");
}

}  // namespace scorch::nn::detail

#include "scorch/nn/resample.h"

#include <algorithm>
#include <cmath>

namespace scorch::nn::detail {

InterpolateMode interpolate_mode(InterpolateModeConfig mode) {
  if (mode == InterpolateModeConfig::Linear) return InterpolateMode::Bilinear;
  if (mode == InterpolateModeConfig::Cubic) return InterpolateMode::Bicubic;
  return InterpolateMode::Nearest;
}

namespace {
double lanczos3(double x) {
  if (x == 0.0) return 1.0;
  if (std::abs(x) >= 3.0) return 0.0;
  double px = M_PI * x;
  return 3.0 * std::sin(px) * std::sin(px / 3.0) / (px * px);
}
}  // namespace

std::vector<float> resample_matrix(InterpolateModeConfig mode, size_t in, size_t out, bool align_corners) {
  std::vector<float> m(out * in, 0.0f);
  double scale = static_cast<double>(in) / static_cast<double>(out);
  for (size_t i = 0; i < out; ++i) {
    if (mode == InterpolateModeConfig::NearestExact) {
      auto src = static_cast<size_t>(std::floor((static_cast<double>(i) + 0.5) * scale));
      m[i * in + std::min(src, in - 1)] = 1.0f;
      continue;
    }
    double src =
        align_corners
            ? (out > 1 ? static_cast<double>(i) * static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0)
            : (static_cast<double>(i) + 0.5) * scale - 0.5;
    auto base = static_cast<int64_t>(std::floor(src));
    std::vector<double> w(in, 0.0);
    double total = 0.0;
    for (int64_t j = base - 2; j <= base + 3; ++j) {
      double weight = lanczos3(src - static_cast<double>(j));
      w[static_cast<size_t>(std::clamp<int64_t>(j, 0, static_cast<int64_t>(in) - 1))] += weight;
      total += weight;
    }
    for (size_t j = 0; j < in; ++j) m[i * in + j] = static_cast<float>(w[j] / total);
  }
  return m;
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
  if (x.rank() != 3 || x[2] != d_input)
    throw ShapeError(
        op, "input " + x.to_string() + " must be [batch, seq, " + std::to_string(d_input) + "] (or [seq, batch, ...])");
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
  if (targets.rank() != 2 || targets[0] != lp[1])
    throw ShapeError(op, "targets " + targets.to_string() + " must be [batch, S] for log_probs " + lp.to_string());
  if (in_len != Shape{lp[1]} || tgt_len != Shape{lp[1]})
    throw ShapeError(op, "input_lengths " + in_len.to_string() + " and target_lengths " + tgt_len.to_string() +
                             " must be [" + std::to_string(lp[1]) + "]");
  if (blank >= lp[2])
    throw ValueError(op, "blank " + std::to_string(blank) + " is not one of " + std::to_string(lp[2]) + " classes");
}

}  // namespace scorch::nn

#include "scorch/nn/deform_conv.h"

namespace scorch::nn::detail {

std::pair<std::vector<float>, std::vector<float>> deform_base_grid(const std::array<size_t, 2>& kernel,
                                                                   const std::array<size_t, 2>& stride,
                                                                   const std::array<size_t, 2>& padding,
                                                                   const std::array<size_t, 2>& dilation,
                                                                   const std::array<size_t, 2>& out) {
  size_t taps = kernel[0] * kernel[1], positions = out[0] * out[1];
  std::vector<float> rows(taps * positions), cols(taps * positions);
  for (size_t ki = 0; ki < kernel[0]; ++ki)
    for (size_t kj = 0; kj < kernel[1]; ++kj)
      for (size_t oi = 0; oi < out[0]; ++oi)
        for (size_t oj = 0; oj < out[1]; ++oj) {
          size_t at = (ki * kernel[1] + kj) * positions + oi * out[1] + oj;
          rows[at] = static_cast<float>(static_cast<double>(oi * stride[0] + ki * dilation[0]) -
                                        static_cast<double>(padding[0]));
          cols[at] = static_cast<float>(static_cast<double>(oj * stride[1] + kj * dilation[1]) -
                                        static_cast<double>(padding[1]));
        }
  return {rows, cols};
}

std::array<size_t, 2> deform_output(size_t h, size_t w, size_t kh, size_t kw, const std::array<size_t, 2>& stride,
                                    const std::array<size_t, 2>& padding, const std::array<size_t, 2>& dilation) {
  std::array<size_t, 2> in{h, w}, k{kh, kw}, out{};
  for (size_t i = 0; i < 2; ++i) {
    size_t span = dilation[i] * (k[i] - 1) + 1, padded = in[i] + 2 * padding[i];
    if (span > padded)
      throw ShapeError("DeformConv2d::forward", "kernel span " + std::to_string(span) +
                                                    " exceeds the padded input size " + std::to_string(padded));
    out[i] = (padded - span) / stride[i] + 1;
  }
  return out;
}

void check_deform(const Shape& x, const Shape& weight, const Shape& offset, std::optional<Shape> mask,
                  size_t weight_groups, size_t offset_groups, const std::array<size_t, 2>& out) {
  const char* op = "DeformConv2d::forward";
  size_t taps = weight[2] * weight[3];
  if (x[1] != weight[1] * weight_groups)
    throw ShapeError(
        op, "input " + x.to_string() + " must have " + std::to_string(weight[1] * weight_groups) + " channels");
  Shape want_offset{x[0], 2 * offset_groups * taps, out[0], out[1]};
  if (offset != want_offset)
    throw ShapeError(op, "offset " + offset.to_string() + " must be " + want_offset.to_string());
  Shape want_mask{x[0], offset_groups * taps, out[0], out[1]};
  if (mask && *mask != want_mask)
    throw ShapeError(op, "mask " + mask->to_string() + " must be " + want_mask.to_string());
}

}  // namespace scorch::nn::detail
