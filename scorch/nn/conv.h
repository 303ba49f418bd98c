#pragma once
// Convolutions: Conv1d/2d/3d and ConvTranspose1d/2d/3d as one template over the spatial rank.
// Weights use PyTorch's layouts: conv [out, in/groups, k...], transposed [in, out/groups, k...].
#include "scorch/module/module.h"
#include "scorch/nn/initializer.h"
#include "scorch/nn/padding.h"
#include "scorch/tensor/functional.h"

namespace scorch::nn {

template <class B, size_t N> struct Conv;
template <class B, size_t N> struct ConvTranspose;

namespace detail {
/// Throws ValueError unless channels divide into groups.
void check_groups(const char* op, size_t in, size_t out, size_t groups);
/// A kernel [lead, second, k...] and an optional bias [bias_size], with fan_in = second·∏k and
/// fan_out = fan_out_channels·∏k (PyTorch's fans for the weight layout).
template <class B, size_t N> std::pair<Param<Tensor<B, N + 2>>, std::optional<Param<Tensor<B, 1>>>> kernel_params(
    const Initializer& init, size_t lead, size_t second, size_t fan_out_channels, const std::array<size_t, N>& kernel,
    std::optional<size_t> bias_size, const typename B::Device& device) {
  Shape shape{lead, second};
  for (size_t k : kernel) shape.push_back(k);
  size_t receptive = product<N>(kernel), fan_in = second * receptive, fan_out = fan_out_channels * receptive;
  auto weight = init.init_with<B, N + 2>(shape, fan_in, fan_out, device);
  std::optional<Param<Tensor<B, 1>>> bias;
  if (bias_size) bias = init.init_with<B, 1>({*bias_size}, fan_in, fan_out, device);
  return {std::move(weight), std::move(bias)};
}
}  // namespace detail

/// Convolution settings (spatial rank N).
template <size_t N> struct ConvConfig {
  std::array<size_t, 2> channels;
  std::array<size_t, N> kernel_size;
  std::array<size_t, N> stride = detail::ones_array<N>();
  std::array<size_t, N> dilation = detail::ones_array<N>();
  size_t groups = 1;
  PaddingConfig padding = PaddingConfig::valid();
  bool bias = true;
  Initializer initializer = Initializer::kaiming_uniform();
  SCORCH_CONFIG(ConvConfig, (channels, kernel_size), (stride, dilation, groups, padding, bias, initializer))
  /// A layer with fresh weights (fan_in = in/groups·∏kernel).
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> Conv<B, N> init(const typename B::Device& device = {}) const;
};

/// y = conv(x, weight) + bias on [batch, channels, spatial...].
template <class B, size_t N> struct Conv {
  Param<Tensor<B, N + 2>> weight;
  std::optional<Param<Tensor<B, 1>>> bias;
  std::array<size_t, N> stride{}, dilation{};
  size_t groups = 1;
  PaddingConfig padding;
  SCORCH_MODULE(Conv, weight, bias, stride, dilation, groups, padding)

  /// x [batch, in_channels, spatial...] → [batch, out_channels, spatial'...] (padding resolved per forward; a
  /// quantized 2-D weight of one group runs the integer kernels over patches).
  Tensor<B, N + 2> forward(const Tensor<B, N + 2>& x) const;
  /// What quantize() may quantize: the weight, per output channel (axis 0); 2-D convolutions of one group run
  /// quantized_linear over their patches, others dequantize it.
  std::vector<QuantTarget> quant_targets() const { return {{"weight", 0, N == 2 && groups == 1}}; }
};

// Out of the class body, so that a stack's library compiles it once (stacks/cpu/nn.h declares those).
template <class B, size_t N> Tensor<B, N + 2> Conv<B, N>::forward(const Tensor<B, N + 2>& x) const {
  std::array<size_t, N> kernel;
  for (size_t i = 0; i < N; ++i) kernel[i] = weight.shape()[i + 2];
  auto [begin, end] = padding.template resolve<N>("Conv::forward", kernel, stride, dilation);
  functional::ConvOptions<N> o{stride, {}, dilation, groups};
  std::vector<std::pair<size_t, size_t>> extra;
  bool asymmetric = false;
  for (size_t i = 0; i < N; ++i) {
    o.padding[i] = std::min(begin[i], end[i]);
    extra.insert(extra.begin(), {begin[i] - o.padding[i], end[i] - o.padding[i]});
    asymmetric = asymmetric || begin[i] != end[i];
  }
  std::optional<Tensor<B, 1>> b;
  if (bias) b = bias->val();
  if constexpr (N == 2) {
    if (weight.is_quantized() && groups == 1) {  // patches through the integer kernels
      auto padded = asymmetric ? x.pad(extra) : x;
      if (auto* observer = quant_input_observer()) observer->observe(weight.id().value(), padded.to_data());
      return quant::conv2d(padded, weight.quantized(), b, o);
    }
  }
  return functional::conv(asymmetric ? x.pad(extra) : x, weight.val(), b, o);
}

template <size_t N> template <class B> Conv<B, N> ConvConfig<N>::init(const typename B::Device& device) const {
  detail::check_groups("ConvConfig::init", channels[0], channels[1], groups);
  Conv<B, N> c;
  std::tie(c.weight, c.bias) =
      detail::kernel_params<B, N>(initializer, channels[1], channels[0] / groups, channels[1] / groups, kernel_size,
                                  bias ? std::optional(channels[1]) : std::nullopt, device);
  c.stride = stride, c.dilation = dilation, c.groups = groups, c.padding = padding;
  return c;
}

/// Transposed convolution settings (spatial rank N).
template <size_t N> struct ConvTransposeConfig {
  std::array<size_t, 2> channels;
  std::array<size_t, N> kernel_size;
  std::array<size_t, N> stride = detail::ones_array<N>();
  std::array<size_t, N> dilation = detail::ones_array<N>();
  std::array<size_t, N> padding{};
  std::array<size_t, N> padding_out{};
  size_t groups = 1;
  bool bias = true;
  Initializer initializer = Initializer::kaiming_uniform();
  SCORCH_CONFIG(ConvTransposeConfig, (channels, kernel_size),
                (stride, dilation, padding, padding_out, groups, bias, initializer))
  /// A layer with fresh weights (fan_in = out/groups·∏kernel, as PyTorch computes it from the weight).
  /// The layer with its parameters read from record (as saved by into_record / a recorder).
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
  template <class B> ConvTranspose<B, N> init(const typename B::Device& device = {}) const;
};

/// The gradient of a convolution with respect to its input, as a layer.
template <class B, size_t N> struct ConvTranspose {
  Param<Tensor<B, N + 2>> weight;
  std::optional<Param<Tensor<B, 1>>> bias;
  functional::ConvTransposeOptions<N> options;
  SCORCH_MODULE(ConvTranspose, weight, bias, options)

  Tensor<B, N + 2> forward(const Tensor<B, N + 2>& x) const {
    std::optional<Tensor<B, 1>> b;
    if (bias) b = bias->val();
    return functional::conv_transpose(x, weight.val(), b, options);
  }
};

template <size_t N> template <class B>
ConvTranspose<B, N> ConvTransposeConfig<N>::init(const typename B::Device& device) const {
  detail::check_groups("ConvTransposeConfig::init", channels[0], channels[1], groups);
  ConvTranspose<B, N> c;
  std::tie(c.weight, c.bias) =
      detail::kernel_params<B, N>(initializer, channels[0], channels[1] / groups, channels[0] / groups, kernel_size,
                                  bias ? std::optional(channels[1]) : std::nullopt, device);
  c.options = {stride, padding, padding_out, dilation, groups};
  return c;
}

}  // namespace scorch::nn

namespace scorch {
template <class B, size_t N, class To> struct RebindBackend<nn::Conv<B, N>, To> { using type = nn::Conv<To, N>; };
template <class B, size_t N, class To> struct RebindBackend<nn::ConvTranspose<B, N>, To> {
  using type = nn::ConvTranspose<To, N>;
};
}  // namespace scorch

namespace scorch::nn {

using Conv1dConfig = ConvConfig<1>;
using Conv2dConfig = ConvConfig<2>;
using Conv3dConfig = ConvConfig<3>;
using ConvTranspose1dConfig = ConvTransposeConfig<1>;
using ConvTranspose2dConfig = ConvTransposeConfig<2>;
using ConvTranspose3dConfig = ConvTransposeConfig<3>;
template <class B> using Conv1d = Conv<B, 1>;
template <class B> using Conv2d = Conv<B, 2>;
template <class B> using Conv3d = Conv<B, 3>;
template <class B> using ConvTranspose1d = ConvTranspose<B, 1>;
template <class B> using ConvTranspose2d = ConvTranspose<B, 2>;
template <class B> using ConvTranspose3d = ConvTranspose<B, 3>;

}  // namespace scorch::nn
