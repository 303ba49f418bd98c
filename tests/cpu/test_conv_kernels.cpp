// The Cpu convolution kernels against direct sums in f64: the depthwise kernel's phase planes (strides, dilations,
// uneven padding, 1-d, 3-d, tiny and empty planes, infinite weights reading the padding) and the GEMM path's shared
// packed image and narrow edge tiles (7 × 7 and 14 × 14 outputs split over threads by rows).
#include <gtest/gtest.h>

#include <cmath>

#include <scorch/scorch.hpp>

namespace scorch {
namespace {
using B = Cpu;

/// One convolution's arguments: spatial sizes are padded to three dims (leading ones 1).
struct Case {
  std::vector<size_t> in, kernel, stride, padding, dilation;
  size_t batch, cin, cout, groups;
};

size_t out_size(const Case& c, size_t d) {
  return (c.in[d] + 2 * c.padding[d] - c.dilation[d] * (c.kernel[d] - 1) - 1) / c.stride[d] + 1;
}

/// out[b, o, z, y, x] = bias[o] + Σ w[o, i, kz, ky, kx] · x[b, g·cin_g + i, z·s + kz·d − pad, ...] (0 outside).
std::vector<double> direct_conv(const Case& c, const std::vector<double>& x, const std::vector<double>& w,
                                const std::vector<double>& bias) {
  size_t oz = out_size(c, 0), oy = out_size(c, 1), ox = out_size(c, 2);
  size_t cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
  std::vector<double> out(c.batch * c.cout * oz * oy * ox);
  size_t i = 0;
  for (size_t b = 0; b < c.batch; ++b)
    for (size_t o = 0; o < c.cout; ++o)
      for (size_t z = 0; z < oz; ++z)
        for (size_t y = 0; y < oy; ++y)
          for (size_t xo = 0; xo < ox; ++xo, ++i) {
            double s = bias[o];
            for (size_t ci = 0; ci < cin_g; ++ci)
              for (size_t kz = 0; kz < c.kernel[0]; ++kz)
                for (size_t ky = 0; ky < c.kernel[1]; ++ky)
                  for (size_t kx = 0; kx < c.kernel[2]; ++kx) {
                    int64_t pos[3] = {int64_t(z * c.stride[0] + kz * c.dilation[0]) - int64_t(c.padding[0]),
                                      int64_t(y * c.stride[1] + ky * c.dilation[1]) - int64_t(c.padding[1]),
                                      int64_t(xo * c.stride[2] + kx * c.dilation[2]) - int64_t(c.padding[2])};
                    double wv = w[(((o * cin_g + ci) * c.kernel[0] + kz) * c.kernel[1] + ky) * c.kernel[2] + kx];
                    bool inside = true;
                    for (size_t d = 0; d < 3; ++d) inside &= pos[d] >= 0 && pos[d] < int64_t(c.in[d]);
                    size_t channel = o / cout_g * cin_g + ci;
                    double xv =
                        inside ? x[(((b * c.cin + channel) * c.in[0] + size_t(pos[0])) * c.in[1] + size_t(pos[1])) *
                                       c.in[2] +
                                   size_t(pos[2])]
                               : 0.0;
                    s += wv * xv;
                  }
            out[i] = s;
          }
  return out;
}

/// Scorch's convolution of c (N spatial dims, the last N of c's three) in dtype, compared with direct_conv; weight
/// inf_weight_at (if any) is infinite.
template <size_t N> void check(const Case& c, DType dtype, uint64_t seed, std::optional<size_t> inf_weight_at = {}) {
  Shape xs{c.batch, c.cin}, ws{c.cout, c.cin / c.groups};
  functional::ConvOptions<N> o;
  o.groups = c.groups;
  for (size_t d = 3 - N; d < 3; ++d) {
    xs.push_back(c.in[d]);
    ws.push_back(c.kernel[d]);
    o.stride[d - (3 - N)] = c.stride[d];
    o.padding[d - (3 - N)] = c.padding[d];
    o.dilation[d - (3 - N)] = c.dilation[d];
  }
  std::vector<double> xv(xs.num_elements()), wv(ws.num_elements()), bv(c.cout);
  auto fill = [&](std::vector<double>& v, uint64_t salt) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(double(i * 7 + salt) * 0.37) + 0.1 * double(salt % 3);
  };
  fill(xv, seed), fill(wv, seed + 1), fill(bv, seed + 2);
  if (inf_weight_at) wv[*inf_weight_at] = std::numeric_limits<double>::infinity();
  std::vector<double> expected = direct_conv(c, xv, wv, bv);
  auto tensor = [&]<size_t D>(const std::vector<double>& v, const Shape& s) {
    return Tensor<B, D>::from_data(TensorData(v, s).convert(dtype));
  };
  auto got = functional::conv(tensor.template operator()<N + 2>(xv, xs), tensor.template operator()<N + 2>(wv, ws),
                              tensor.template operator()<1>(bv, Shape{c.cout}), o);
  double tol = dtype == DType::F64 ? 1e-12 : 2e-5;
  TensorData(expected, got.shape()).assert_approx_eq(got.cast(DType::F64).to_data(), Tolerance::rel_abs(tol, tol));
}

Case plane2d(std::vector<size_t> in, std::vector<size_t> kernel, size_t stride, size_t dilation, size_t padding,
             size_t channels, size_t per_channel) {
  return Case{{1, in[0], in[1]},
              {1, kernel[0], kernel[1]},
              {1, stride, stride},
              {0, padding, padding},
              {1, dilation, dilation},
              2,
              channels,
              channels * per_channel,
              channels};
}

TEST(ConvKernels, DepthwisePlanesMatchDirectSums) {
  uint64_t seed = 1;
  for (size_t stride : {1, 2, 3})
    for (size_t dilation : {1, 2})
      for (size_t padding : {0, 1, 2}) {
        check<2>(plane2d({7, 7}, {3, 3}, stride, dilation, padding, 5, 1), DType::F32, seed++);
        check<2>(plane2d({14, 30}, {5, 3}, stride, dilation, padding, 3, 2), DType::F32, seed++);
      }
  check<2>(plane2d({1, 1}, {3, 3}, 1, 1, 1, 4, 1), DType::F32, 40);  // a 1 × 1 plane: every tap but one pads
  check<2>(plane2d({9, 9}, {1, 1}, 2, 1, 0, 4, 1), DType::F64, 41);  // 1 × 1 kernel, stride 2: one phase used
  check<2>(plane2d({112, 112}, {3, 3}, 2, 1, 1, 3, 1), DType::F64, 42);
  check<2>(plane2d({20, 17}, {3, 3}, 1, 5, 1, 3, 1), DType::F32, 43);   // dilation wider than half the plane
  check<2>(plane2d({40, 40}, {3, 3}, 1, 19, 0, 2, 1), DType::F32, 44);  // a grid too wide: the row-by-row kernel
}

TEST(ConvKernels, DepthwiseOneAndThreeDimensionalPlanesMatchDirectSums) {
  check<1>(Case{{1, 1, 40}, {1, 1, 5}, {1, 1, 2}, {0, 0, 2}, {1, 1, 1}, 3, 4, 8, 4}, DType::F32, 50);
  check<3>(Case{{5, 6, 7}, {3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {1, 1, 2}, 2, 3, 3, 3}, DType::F32, 51);
}

TEST(ConvKernels, DepthwiseInfiniteWeightMakesPaddedOutputsNaN) {
  // Tap (0, 0) of channel 0 is infinite: outputs whose tap reads the padding are inf · 0 = NaN, the rest ±inf, as the
  // im2col GEMM and direct sums give.
  check<2>(plane2d({6, 6}, {3, 3}, 1, 1, 1, 2, 1), DType::F32, 60, 0);
  check<2>(plane2d({6, 6}, {3, 3}, 2, 1, 1, 2, 1), DType::F32, 61, 0);
}

TEST(ConvKernels, DepthwiseEmptyBatchGivesAnEmptyOutput) {
  Case empty = plane2d({7, 7}, {3, 3}, 1, 1, 1, 4, 1);
  empty.batch = 0;
  check<2>(empty, DType::F32, 70);
}

TEST(ConvKernels, NarrowOutputsSplitByRowsMatchDirectSums) {
  // 49 and 196 output pixels are whole 48-column panels and 1 or 4 columns more; 160 output channels split over
  // threads by rows, sharing the packed image.
  size_t threads = backends::cpu::num_threads();
  backends::cpu::set_num_threads(2);
  for (size_t size : {7, 14})
    check<2>(Case{{1, size, size}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}, 1, 64, 160, 1}, DType::F32, 80 + size);
  // f64: 100 pixels leave 4 columns past the last whole panel (24 or 8 columns wide, by the build's vectors).
  check<2>(Case{{1, 10, 10}, {1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}, 1, 48, 200, 1}, DType::F64, 90);
  backends::cpu::set_num_threads(threads);
}

}  // namespace
}  // namespace scorch
