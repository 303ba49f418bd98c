#pragma once
// Position information for sequence models: sinusoidal PositionalEncoding (added to the input)
// and RotaryEncoding (RoPE: rotates interleaved feature pairs by a position-dependent angle).
#include <cmath>
#include <functional>

#include "scorch/module/module.h"

namespace scorch::nn {

/// The [length, d_model] table pe[pos, 2i] = sin(pos / timescale^(2i/d)), pe[pos, 2i+1] = cos(...).
template <class B> Tensor<B, 2> generate_sinusoids(size_t length, size_t d_model, double max_timescale = 10000.0,
                                                   const typename B::Device& device = {}) {
  if (d_model % 2 != 0) throw ValueError("generate_sinusoids", "d_model must be even, got " + std::to_string(d_model));
  std::vector<float> values(length * d_model);
  for (size_t pos = 0; pos < length; ++pos)
    for (size_t i = 0; i < d_model; i += 2) {
      double angle =
          static_cast<double>(pos) / std::pow(max_timescale, static_cast<double>(i) / static_cast<double>(d_model));
      values[pos * d_model + i] = static_cast<float>(std::sin(angle));
      values[pos * d_model + i + 1] = static_cast<float>(std::cos(angle));
    }
  return Tensor<B, 2>::from_data(TensorData(values, {length, d_model}), device);
}

template <class B> struct PositionalEncoding;

/// Sinusoidal encoding settings.
struct PositionalEncodingConfig {
  size_t d_model;
  size_t max_sequence_size = 5000;
  double max_timescale = 10000.0;
  SCORCH_CONFIG(PositionalEncodingConfig, (d_model), (max_sequence_size, max_timescale))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> PositionalEncoding<B> init(const typename B::Device& device = {}) const {
    return PositionalEncoding<B>{generate_sinusoids<B>(max_sequence_size, d_model, max_timescale, device)};
  }
};

/// x [batch, seq, d_model] + sinusoids[0..seq).
template <class B> struct PositionalEncoding {
  Tensor<B, 2> sinusoids;
  SCORCH_MODULE(PositionalEncoding, sinusoids)
  Tensor<B, 3> forward(const Tensor<B, 3>& x) const {
    auto [batch, seq, d] = x.dims();
    auto [max_seq, d_model] = sinusoids.dims();
    if (seq > max_seq || d != d_model)
      throw ShapeError("PositionalEncoding::forward", "input " + x.shape().to_string() + " exceeds the table [" +
                                                          std::to_string(max_seq) + ", " + std::to_string(d_model) +
                                                          "]");
    return x + sinusoids.slice_dim(0, Slice(0, static_cast<int64_t>(seq))).template unsqueeze<3>();
  }
};

template <class B> struct RotaryEncoding;

/// RoPE settings: the table covers max_sequence_length positions of d_model (even) features.
struct RotaryEncodingConfig {
  size_t max_sequence_length, d_model;
  double theta = 10000.0;
  SCORCH_CONFIG(RotaryEncodingConfig, (max_sequence_length, d_model), (theta))
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> RotaryEncoding<B> init(const typename B::Device& device = {}) const {
    return init_with_frequency_scaling<B>([](double f) { return f; }, device);
  }
  /// The same with each pair's frequency passed through scale (context-extension schemes).
  template <class B> RotaryEncoding<B> init_with_frequency_scaling(const std::function<double(double)>& scale,
                                                                   const typename B::Device& device = {}) const;
};

/// Rotates pairs (x[2i], x[2i+1]) at position p by angle p·θ^(−2i/d).
template <class B> struct RotaryEncoding {
  Tensor<B, 2> cos, sin;  // [max_sequence_length, d_model / 2]
  SCORCH_MODULE(RotaryEncoding, cos, sin)

  /// Positions from 0: x [..., seq, d_model] (rank ≥ 2).
  template <size_t D> Tensor<B, D> forward(const Tensor<B, D>& x) const { return apply(x, 0); }
  /// Positions from start (streaming: the next chunk of a sequence).
  template <size_t D> Tensor<B, D> apply(const Tensor<B, D>& x, size_t start) const {
    static_assert(D >= 2, "RotaryEncoding needs [..., seq, d_model]");
    size_t seq = x.shape()[D - 2], d = x.shape()[D - 1];
    auto [max_seq, half] = cos.dims();
    if (d != 2 * half || start + seq > max_seq)
      throw ShapeError("RotaryEncoding::apply", "input " + x.shape().to_string() + " from position " +
                                                    std::to_string(start) + " exceeds the table of " +
                                                    std::to_string(max_seq) + " positions × " +
                                                    std::to_string(2 * half) + " features");
    auto rows = Slice(static_cast<int64_t>(start), static_cast<int64_t>(start + seq));
    auto c = cos.slice_dim(0, rows).template unsqueeze<3>(), s = sin.slice_dim(0, rows).template unsqueeze<3>();
    auto pairs = x.template reshape<3>({-1, static_cast<int64_t>(seq), static_cast<int64_t>(d)})
                     .template reshape<4>({-1, static_cast<int64_t>(seq), static_cast<int64_t>(half), 2});
    auto x0 = pairs.slice_dim(3, Slice(0)).template squeeze_dim<3>(3),
         x1 = pairs.slice_dim(3, Slice(1)).template squeeze_dim<3>(3);
    auto out = Tensor<B, 3>::stack({x0 * c - x1 * s, x0 * s + x1 * c}, 3);
    return out.template reshape<D>(x.shape());
  }
};

template <class B>
RotaryEncoding<B> RotaryEncodingConfig::init_with_frequency_scaling(const std::function<double(double)>& scale,
                                                                    const typename B::Device& device) const {
  if (d_model % 2 != 0)
    throw ValueError("RotaryEncodingConfig::init", "d_model must be even, got " + std::to_string(d_model));
  size_t half = d_model / 2;
  std::vector<float> c(max_sequence_length * half), s(max_sequence_length * half);
  for (size_t i = 0; i < half; ++i) {
    double freq = scale(std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d_model)));
    for (size_t p = 0; p < max_sequence_length; ++p) {
      c[p * half + i] = static_cast<float>(std::cos(static_cast<double>(p) * freq));
      s[p * half + i] = static_cast<float>(std::sin(static_cast<double>(p) * freq));
    }
  }
  return RotaryEncoding<B>{Tensor<B, 2>::from_data(TensorData(c, {max_sequence_length, half}), device),
                           Tensor<B, 2>::from_data(TensorData(s, {max_sequence_length, half}), device)};
}

}  // namespace scorch::nn
