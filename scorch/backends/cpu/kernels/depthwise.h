#pragma once
// Depthwise convolution on the Cpu (one input channel per group): direct sums over the kernel's taps, in parallel
// over (batch, channel) planes, instead of a GEMM with one row per channel.
#include <cstddef>

#include "scorch/backends/cpu/kernels/window.h"

namespace scorch::backends::cpu::kernels {

/// out [batch, cout, g.out] = depthwise conv(x [batch, cin, g.in], w [cout, 1, kernel]) + bias; cout is a multiple
/// of cin. A tap that reads the zero padding adds w · 0 (NaN for an infinite weight), as the im2col GEMM does.
template <class C> void depthwise_conv(const C* x, const C* w, const C* bias, C* out, size_t batch, size_t cin,
                                       size_t cout, const window::Geometry& g);

}  // namespace scorch::backends::cpu::kernels
