#pragma once
// Deformable convolution v2 (torchvision's deform_conv2d): each kernel tap samples the input
// bilinearly at its regular position plus a learned offset, optionally scaled by a mask; the
// samples form im2col columns multiplied by the weight. Built from tensor ops (gather, floor,
// matmul), so autodiff gives the gradients of the input, offsets, mask, weight and bias.
#include "scorch/nn/conv.h"

namespace scorch::nn {

template <class B> struct DeformConv2d;

namespace detail {
/// Row and column of every kernel tap at every output position: two [taps, positions] tables.
std::pair<std::vector<float>, std::vector<float>> deform_base_grid(const std::array<size_t, 2>& kernel,
                                                                   const std::array<size_t, 2>& stride,
                                                                   const std::array<size_t, 2>& padding,
                                                                   const std::array<size_t, 2>& dilation,
                                                                   const std::array<size_t, 2>& out);
}  // namespace detail

/// Deformable convolution settings (Burn's defaults).
struct DeformConv2dConfig {
  std::array<size_t, 2> channels, kernel_size;
  std::array<size_t, 2> stride{1, 1}, dilation{1, 1};
  size_t weight_groups = 1, offset_groups = 1;
  PaddingConfig padding = PaddingConfig::valid();
  bool bias = true;
  Initializer initializer = Initializer::kaiming_uniform();
  SCORCH_CONFIG(DeformConv2dConfig, (channels, kernel_size),
                (stride, dilation, weight_groups, offset_groups, padding, bias, initializer))
  template <class B> DeformConv2d<B> init(const typename B::Device& device = {}) const;
  template <class B> auto init_with(const Record& record, const typename B::Device& device = {}) const {
    return init_from_record(record, [&] { return this->template init<B>(device); });
  }
};

/// y = Σ_taps w · bilinear(x, p + tap + Δ) · m, per output position.
template <class B> struct DeformConv2d {
  Param<Tensor<B, 4>> weight;
  std::optional<Param<Tensor<B, 1>>> bias;
  std::array<size_t, 2> stride{1, 1}, dilation{1, 1}, padding{0, 0};
  size_t weight_groups = 1, offset_groups = 1;
  SCORCH_MODULE(DeformConv2d, weight, bias, stride, dilation, padding, weight_groups, offset_groups)

  /// x [batch, c_in, h, w], offset [batch, 2·offset_groups·kh·kw, h_out, w_out] ((Δrow, Δcol)
  /// per tap), mask [batch, offset_groups·kh·kw, h_out, w_out] → [batch, c_out, h_out, w_out].
  Tensor<B, 4> forward(const Tensor<B, 4>& x, const Tensor<B, 4>& offset,
                       const std::optional<Tensor<B, 4>>& mask = std::nullopt) const {
    auto [batch, c_in, h, w] = x.dims();
    auto [c_out, c_per_group, kh, kw] = weight.val().dims();
    std::array<size_t, 2> out = output_size(h, w, kh, kw);
    size_t taps = kh * kw, positions = out[0] * out[1], groups = offset_groups, cg = c_in / groups;
    check(x.shape(), offset.shape(), mask ? std::optional(mask->shape()) : std::nullopt, out);
    auto [base_r, base_c] = detail::deform_base_grid({kh, kw}, stride, padding, dilation, out);
    auto grid = [&](const std::vector<float>& v) {
      return Tensor<B, 4>::from_data(TensorData(v, {1, 1, taps, positions}).convert(x.dtype()), x.device());
    };
    auto deltas = offset.template reshape<5>({batch, groups, taps, size_t{2}, positions});
    auto rows = deltas.slice_dim(3, Slice(0)).template reshape<4>({batch, groups, taps, positions}) + grid(base_r);
    auto cols = deltas.slice_dim(3, Slice(1)).template reshape<4>({batch, groups, taps, positions}) + grid(base_c);
    auto image = x.template reshape<4>({batch, groups, cg, h * w});
    auto r0 = rows.floor(), c0 = cols.floor();
    auto lr = rows - r0, lc = cols - c0;
    Tensor<B, 4> sampled;
    for (int dr = 0; dr < 2; ++dr)
      for (int dc = 0; dc < 2; ++dc) {
        auto r = r0 + static_cast<double>(dr), c = c0 + static_cast<double>(dc);
        auto valid = r.greater_equal_elem(0.0)
                         .bool_and(r.lower_equal_elem(static_cast<double>(h) - 1))
                         .bool_and(c.greater_equal_elem(0.0))
                         .bool_and(c.lower_equal_elem(static_cast<double>(w) - 1));
        auto weight_rc = (dr ? lr : -lr + 1.0) * (dc ? lc : -lc + 1.0);
        auto index = (r.clamp(0.0, static_cast<double>(h) - 1) * static_cast<double>(w) +
                      c.clamp(0.0, static_cast<double>(w) - 1))
                         .int_();
        auto flat_index = index.template reshape<4>({batch, groups, size_t{1}, taps * positions})
                              .expand_to({batch, groups, cg, taps * positions});
        auto term =
            image.gather(3, flat_index) * weight_rc.mask_fill(valid.bool_not(), 0.0)
                                              .template reshape<4>({batch, groups, size_t{1}, taps * positions});
        sampled = dr == 0 && dc == 0 ? term : sampled + term;
      }
    if (mask) sampled = sampled * mask->template reshape<4>({batch, groups, size_t{1}, taps * positions});
    size_t wg = weight_groups, k_cols = c_per_group * taps;
    auto columns = sampled.template reshape<4>({batch, wg, k_cols, positions});
    auto kernel = weight.val().template reshape<4>({size_t{1}, wg, c_out / wg, k_cols});
    auto y = kernel.matmul(columns).template reshape<4>({batch, c_out, out[0], out[1]});
    return bias ? y + bias->val().template reshape<4>({size_t{1}, c_out, size_t{1}, size_t{1}}) : y;
  }

 private:
  std::array<size_t, 2> output_size(size_t h, size_t w, size_t kh, size_t kw) const;
  void check(const Shape& x, const Shape& offset, std::optional<Shape> mask, const std::array<size_t, 2>& out) const;
};

namespace detail {
/// Throws ShapeError/ValueError for inputs a DeformConv2d cannot take (messages name the shapes).
void check_deform(const Shape& x, const Shape& weight, const Shape& offset, std::optional<Shape> mask,
                  size_t weight_groups, size_t offset_groups, const std::array<size_t, 2>& out);
/// The output size, or ShapeError when the window does not fit.
std::array<size_t, 2> deform_output(size_t h, size_t w, size_t kh, size_t kw, const std::array<size_t, 2>& stride,
                                    const std::array<size_t, 2>& padding, const std::array<size_t, 2>& dilation);
}  // namespace detail

template <class B> std::array<size_t, 2> DeformConv2d<B>::output_size(size_t h, size_t w, size_t kh, size_t kw) const {
  return detail::deform_output(h, w, kh, kw, stride, padding, dilation);
}
template <class B> void DeformConv2d<B>::check(const Shape& x, const Shape& offset, std::optional<Shape> mask,
                                               const std::array<size_t, 2>& out) const {
  detail::check_deform(x, weight.val().shape(), offset, mask, weight_groups, offset_groups, out);
}

template <class B> DeformConv2d<B> DeformConv2dConfig::init(const typename B::Device& device) const {
  detail::check_groups("DeformConv2dConfig::init", channels[0], channels[1], weight_groups);
  if (offset_groups == 0 || channels[0] % offset_groups != 0)
    throw ValueError("DeformConv2dConfig::init", std::to_string(channels[0]) + " input channels do not split into " +
                                                     std::to_string(offset_groups) + " offset groups");
  auto [begin, end] = padding.resolve<2>("DeformConv2dConfig::init", kernel_size, stride, dilation);
  if (begin != end) throw ValueError("DeformConv2dConfig::init", "padding must be the same on both sides of each dim");
  DeformConv2d<B> d;
  std::tie(d.weight, d.bias) =
      detail::kernel_params<B, 2>(initializer, channels[1], channels[0] / weight_groups, channels[1] / weight_groups,
                                  kernel_size, bias ? std::optional(channels[1]) : std::nullopt, device);
  d.stride = stride, d.dilation = dilation, d.padding = begin, d.weight_groups = weight_groups,
  d.offset_groups = offset_groups;
  return d;
}

}  // namespace scorch::nn
