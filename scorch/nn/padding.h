#pragma once
// Padding choices of convolution and pooling layers: Valid (none), Same (output size = input
// size at stride 1; PyTorch's split, extra on the end) or Explicit values.
#include <array>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/module/config.h"

namespace scorch::nn {

SCORCH_ENUM(PaddingKind, Valid, Same, Explicit)

namespace detail {
/// An array of ones (default strides and dilations).
template <size_t N> std::array<size_t, N> ones_array() {
  std::array<size_t, N> a;
  a.fill(1);
  return a;
}
/// The product of an array's values.
template <size_t N> size_t product(const std::array<size_t, N>& a) {
  size_t p = 1;
  for (size_t v : a) p *= v;
  return p;
}
}  // namespace detail

/// A layer's padding. Explicit takes one value per spatial dim (both sides) or two per dim
/// (all begins, then all ends: Burn's 2-d order top, left, bottom, right).
struct PaddingConfig {
  PaddingKind kind = PaddingKind::Valid;
  std::vector<size_t> values;
  SCORCH_CONFIG(PaddingConfig, (), (kind, values))

  static PaddingConfig valid() { return {}; }
  static PaddingConfig same() { return PaddingConfig().with_kind(PaddingKind::Same); }
  static PaddingConfig explicit_pad(std::vector<size_t> v) {
    return PaddingConfig().with_kind(PaddingKind::Explicit).with_values(std::move(v));
  }

  /// Begin and end padding per spatial dim for a window; throws ValueError on a bad value count
  /// or on Same with a stride other than 1.
  template <size_t N>
  std::pair<std::array<size_t, N>, std::array<size_t, N>> resolve(const char* op, const std::array<size_t, N>& kernel,
                                                                  const std::array<size_t, N>& stride,
                                                                  const std::array<size_t, N>& dilation) const {
    std::array<size_t, N> begin{}, end{};
    if (kind == PaddingKind::Explicit) {
      if (values.size() != N && values.size() != 2 * N)
        throw ValueError(op, "explicit padding needs " + std::to_string(N) + " or " + std::to_string(2 * N) +
                                 " values, got " + std::to_string(values.size()));
      for (size_t i = 0; i < N; ++i) begin[i] = values[i], end[i] = values.size() == N ? values[i] : values[N + i];
    } else if (kind == PaddingKind::Same) {
      for (size_t i = 0; i < N; ++i) {
        if (stride[i] != 1) throw ValueError(op, "'same' padding needs stride 1, got " + std::to_string(stride[i]));
        size_t total = dilation[i] * (kernel[i] - 1);
        begin[i] = total / 2, end[i] = total - total / 2;
      }
    }
    return {begin, end};
  }
};

}  // namespace scorch::nn
