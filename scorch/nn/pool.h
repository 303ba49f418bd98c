#pragma once
// Pooling layers: max and average (1d/2d), adaptive average and max (1d/2d/3d). No parameters.
#include <optional>

#include "scorch/module/module.h"
#include "scorch/nn/padding.h"
#include "scorch/tensor/functional.h"

namespace scorch::nn {

namespace detail {
/// Symmetric padding of a pool; asymmetric Same padding is refused (PyTorch's pools have none).
template <size_t N>
std::array<size_t, N> pool_padding(const char* op, const PaddingConfig& p, const std::array<size_t, N>& kernel,
                                   const std::array<size_t, N>& stride, const std::array<size_t, N>& dilation) {
  auto [begin, end] = p.template resolve<N>(op, kernel, stride, dilation);
  if (begin != end) throw ValueError(op, "padding must be the same on both sides of each dim (an even 'same' total)");
  return begin;
}
}  // namespace detail

/// Max pooling settings; stride defaults to the kernel size.
template <size_t N> struct MaxPoolConfig {
  std::array<size_t, N> kernel_size;
  std::optional<std::array<size_t, N>> stride;
  PaddingConfig padding = PaddingConfig::valid();
  std::array<size_t, N> dilation = detail::ones_array<N>();
  bool ceil_mode = false;
  SCORCH_CONFIG(MaxPoolConfig, (kernel_size), (stride, padding, dilation, ceil_mode))
  auto init() const;
};

/// Max over each window of [batch, channels, spatial...].
template <size_t N> struct MaxPool {
  std::array<size_t, N> kernel_size{}, stride{}, padding{}, dilation{};
  bool ceil_mode = false;
  SCORCH_MODULE(MaxPool, kernel_size, stride, padding, dilation, ceil_mode)
  template <class B> Tensor<B, N + 2> forward(const Tensor<B, N + 2>& x) const {
    return functional::max_pool(x, kernel_size, stride, padding, dilation, ceil_mode);
  }
};

template <size_t N> auto MaxPoolConfig<N>::init() const {
  auto s = stride.value_or(kernel_size);
  return MaxPool<N>{kernel_size, s, detail::pool_padding<N>("MaxPoolConfig::init", padding, kernel_size, s, dilation),
                    dilation, ceil_mode};
}

/// Average pooling settings; stride defaults to the kernel size.
template <size_t N> struct AvgPoolConfig {
  std::array<size_t, N> kernel_size;
  std::optional<std::array<size_t, N>> stride;
  PaddingConfig padding = PaddingConfig::valid();
  bool count_include_pad = true;
  bool ceil_mode = false;
  SCORCH_CONFIG(AvgPoolConfig, (kernel_size), (stride, padding, count_include_pad, ceil_mode))
  auto init() const;
};

/// Mean over each window; count_include_pad divides by the full window at padded borders.
template <size_t N> struct AvgPool {
  std::array<size_t, N> kernel_size{}, stride{}, padding{};
  bool count_include_pad = true, ceil_mode = false;
  SCORCH_MODULE(AvgPool, kernel_size, stride, padding, count_include_pad, ceil_mode)
  template <class B> Tensor<B, N + 2> forward(const Tensor<B, N + 2>& x) const {
    return functional::avg_pool(x, kernel_size, stride, padding, count_include_pad, ceil_mode);
  }
};

template <size_t N> auto AvgPoolConfig<N>::init() const {
  auto s = stride.value_or(kernel_size);
  return AvgPool<N>{kernel_size, s,
                    detail::pool_padding<N>("AvgPoolConfig::init", padding, kernel_size, s, detail::ones_array<N>()),
                    count_include_pad, ceil_mode};
}

/// Adaptive pooling settings: the output size per spatial dim.
template <size_t N> struct AdaptivePoolConfig {
  std::array<size_t, N> output_size;
  SCORCH_CONFIG(AdaptivePoolConfig, (output_size), ())
  auto init() const;
};

/// Average over adaptive windows (PyTorch's floor/ceil split) to a fixed output size.
template <size_t N> struct AdaptiveAvgPool {
  std::array<size_t, N> output_size{};
  SCORCH_MODULE(AdaptiveAvgPool, output_size)
  template <class B> Tensor<B, N + 2> forward(const Tensor<B, N + 2>& x) const {
    return functional::adaptive_avg_pool(x, output_size);
  }
};
template <size_t N> auto AdaptivePoolConfig<N>::init() const { return AdaptiveAvgPool<N>{output_size}; }

/// Max over adaptive windows.
template <size_t N> struct AdaptiveMaxPool {
  std::array<size_t, N> output_size{};
  SCORCH_MODULE(AdaptiveMaxPool, output_size)
  template <class B> Tensor<B, N + 2> forward(const Tensor<B, N + 2>& x) const {
    return functional::adaptive_max_pool(x, output_size);
  }
};

using MaxPool1dConfig = MaxPoolConfig<1>;
using MaxPool2dConfig = MaxPoolConfig<2>;
using AvgPool1dConfig = AvgPoolConfig<1>;
using AvgPool2dConfig = AvgPoolConfig<2>;
using AdaptiveAvgPool1dConfig = AdaptivePoolConfig<1>;
using AdaptiveAvgPool2dConfig = AdaptivePoolConfig<2>;
using AdaptiveAvgPool3dConfig = AdaptivePoolConfig<3>;
using MaxPool1d = MaxPool<1>;
using MaxPool2d = MaxPool<2>;
using AvgPool1d = AvgPool<1>;
using AvgPool2d = AvgPool<2>;
using AdaptiveAvgPool1d = AdaptiveAvgPool<1>;
using AdaptiveAvgPool2d = AdaptiveAvgPool<2>;
using AdaptiveAvgPool3d = AdaptiveAvgPool<3>;
using AdaptiveMaxPool1d = AdaptiveMaxPool<1>;
using AdaptiveMaxPool2d = AdaptiveMaxPool<2>;

}  // namespace scorch::nn
