// Module ops on LibTorch: convolution (and its backward), pooling, interpolation, unfold/fold and
// attention, for 1 to 3 spatial dims. 1-d pooling runs as 2-d over a height of 1, so its indices
// stay flat within each channel. f16/bf16 on the host compute in f32.
#include <limits>

#include "scorch/backends/libtorch/interop.h"

namespace scorch::backends::libtorch::ops {
using namespace detail;
namespace {

using Dims = std::vector<int64_t>;

/// dims with a leading 1 (a 1-d window seen as 2-d), or dims itself.
Dims lift(const SpatialDims& dims, bool one_d, int64_t pad_value = 1) {
  Dims out = sizes(dims);
  if (one_d) out.insert(out.begin(), pad_value);
  return out;
}

/// x widened for the host, with a height of 1 inserted for 1-d ops.
at::Tensor prepare(T& t, bool one_d) {
  at::Tensor x = widened(take(t));
  return one_d ? x.unsqueeze(2) : x;
}

/// y narrowed back to type, with the inserted height removed.
TorchTensor finish(const at::Tensor& y, at::ScalarType type, bool one_d) {
  return wrap((one_d ? y.squeeze(2) : y).to(type));
}

void require_unit_dilation(const char* op, const PoolSpec& spec) {
  for (size_t v : spec.dilation)
    if (v != 1) throw ValueError(op, "LibTorch's average pooling has no dilation");
}

c10::optional<at::Tensor> optional_tensor(std::optional<T>& t) {
  if (!t) return c10::nullopt;
  return widened(take(*t));
}

T convolution(const char* op, T a, T w, std::optional<T> bias, const ConvSpec& spec, bool transposed) {
  return guarded(op, [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = widened(take(a)), weight = widened(take(w));
    Dims out_pad = transposed ? sizes(spec.padding_out) : Dims(spec.stride.size(), 0);
    at::Tensor y = at::convolution(x, weight, optional_tensor(bias), sizes(spec.stride), sizes(spec.padding),
                                   sizes(spec.dilation), transposed, out_pad, static_cast<int64_t>(spec.groups));
    return wrap(y.to(type));
  });
}

ConvGradients<T> convolution_backward(const char* op, T a, T w, bool has_bias, T g, const ConvSpec& spec,
                                      bool transposed) {
  return guarded(op, [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = widened(take(a)), weight = widened(take(w)), grad = widened(take(g));
    int64_t bias_size = transposed ? weight.size(1) * static_cast<int64_t>(spec.groups) : weight.size(0);
    Dims bias_sizes{bias_size};
    Dims out_pad = transposed ? sizes(spec.padding_out) : Dims(spec.stride.size(), 0);
    auto [gx, gw, gb] =
        at::convolution_backward(grad, x, weight, has_bias ? at::OptionalIntArrayRef(bias_sizes) : c10::nullopt,
                                 sizes(spec.stride), sizes(spec.padding), sizes(spec.dilation), transposed, out_pad,
                                 static_cast<int64_t>(spec.groups), {true, true, has_bias});
    ConvGradients<T> out{wrap(gx.to(type)), wrap(gw.to(type)), std::nullopt};
    if (has_bias) out.bias = wrap(gb.to(type));
    return out;
  });
}

}  // namespace

T conv(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  return convolution("conv", std::move(x), std::move(w), std::move(bias), spec, false);
}
T conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  return convolution("conv_transpose", std::move(x), std::move(w), std::move(bias), spec, true);
}
ConvGradients<T> conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  return convolution_backward("conv_backward", std::move(x), std::move(w), has_bias, std::move(grad), spec, false);
}
ConvGradients<T> conv_transpose_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  return convolution_backward("conv_transpose_backward", std::move(x), std::move(w), has_bias, std::move(grad), spec,
                              true);
}

T avg_pool(T a, const PoolSpec& spec) {
  require_unit_dilation("avg_pool", spec);
  return guarded("avg_pool", [&] {
    bool one_d = spec.kernel.size() == 1;
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = prepare(a, one_d);
    Dims k = lift(spec.kernel, one_d), s = lift(spec.stride, one_d), p = lift(spec.padding, one_d, 0);
    at::Tensor y = spec.kernel.size() == 3 ? at::avg_pool3d(x, k, s, p, spec.ceil_mode, spec.count_include_pad)
                                           : at::avg_pool2d(x, k, s, p, spec.ceil_mode, spec.count_include_pad);
    return finish(y, type, one_d);
  });
}

T avg_pool_backward(T a, T g, const PoolSpec& spec) {
  require_unit_dilation("avg_pool_backward", spec);
  return guarded("avg_pool_backward", [&] {
    bool one_d = spec.kernel.size() == 1;
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = prepare(a, one_d), grad = prepare(g, one_d);
    Dims k = lift(spec.kernel, one_d), s = lift(spec.stride, one_d), p = lift(spec.padding, one_d, 0);
    at::Tensor gx =
        spec.kernel.size() == 3
            ? at::avg_pool3d_backward(grad, x, k, s, p, spec.ceil_mode, spec.count_include_pad, c10::nullopt)
            : at::avg_pool2d_backward(grad, x, k, s, p, spec.ceil_mode, spec.count_include_pad, c10::nullopt);
    return finish(gx, type, one_d);
  });
}

std::pair<T, T> max_pool_with_indices(T a, const PoolSpec& spec) {
  return guarded("max_pool_with_indices", [&] {
    bool one_d = spec.kernel.size() == 1;
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = prepare(a, one_d);
    Dims k = lift(spec.kernel, one_d), s = lift(spec.stride, one_d), p = lift(spec.padding, one_d, 0),
         dl = lift(spec.dilation, one_d);
    auto [y, idx] = spec.kernel.size() == 3 ? at::max_pool3d_with_indices(x, k, s, p, dl, spec.ceil_mode)
                                            : at::max_pool2d_with_indices(x, k, s, p, dl, spec.ceil_mode);
    return std::pair<T, T>{finish(y, type, one_d), finish(idx, at::kLong, one_d)};
  });
}

T max_pool_backward(T a, T g, T indices) {
  return guarded("max_pool_backward", [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = take(a), grad = widened(take(g)), idx = take(indices).to(at::kLong);
    // Each output's gradient goes to the input element its index names (flat per channel).
    at::Tensor gx =
        at::zeros({x.size(0), x.size(1), x.numel() / std::max<int64_t>(1, x.size(0) * x.size(1))}, grad.options());
    gx.scatter_add_(2, idx.flatten(2), grad.flatten(2));
    return wrap(gx.reshape(x.sizes()).to(type));
  });
}

T adaptive_avg_pool(T a, const SpatialDims& output_size) {
  return guarded("adaptive_avg_pool", [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = widened(take(a));
    Dims out = sizes(output_size);
    at::Tensor y = out.size() == 1   ? at::adaptive_avg_pool1d(x, out)
                   : out.size() == 2 ? at::adaptive_avg_pool2d(x, out)
                                     : at::adaptive_avg_pool3d(x, out);
    return wrap(y.to(type));
  });
}

T adaptive_avg_pool_backward(T a, T g) {
  return guarded("adaptive_avg_pool_backward", [&] {
    bool one_d = a.shape().rank() == 3;
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = prepare(a, one_d), grad = prepare(g, one_d);
    if (grad.numel() == 0) return finish(at::zeros_like(x), type, one_d);  // ATen rejects zero channels
    at::Tensor gx =
        x.dim() == 5 ? at::_adaptive_avg_pool3d_backward(grad, x) : at::_adaptive_avg_pool2d_backward(grad, x);
    return finish(gx, type, one_d);
  });
}

std::pair<T, T> adaptive_max_pool_with_indices(T a, const SpatialDims& output_size) {
  return guarded("adaptive_max_pool_with_indices", [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = widened(take(a));
    Dims out = sizes(output_size);
    auto [y, idx] = out.size() == 1   ? at::adaptive_max_pool1d(x, out)
                    : out.size() == 2 ? at::adaptive_max_pool2d(x, out)
                                      : at::adaptive_max_pool3d(x, out);
    return std::pair<T, T>{wrap(y.to(type)), wrap(idx)};
  });
}

T interpolate(T a, const InterpolateSpec& spec) {
  return guarded("interpolate", [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor x = widened(take(a));
    Dims out = sizes(spec.output_size);
    at::Tensor y;
    switch (spec.mode) {
      case InterpolateMode::Nearest: y = at::upsample_nearest2d(x, out); break;
      case InterpolateMode::Bilinear: y = at::upsample_bilinear2d(x, out, spec.align_corners); break;
      case InterpolateMode::Bicubic: y = at::upsample_bicubic2d(x, out, spec.align_corners); break;
    }
    return wrap(y.to(type));
  });
}

T interpolate_backward(T a, T g, const InterpolateSpec& spec) {
  return guarded("interpolate_backward", [&] {
    at::ScalarType type = to_torch(a.dtype());
    Dims in = sizes(a.shape()), out = sizes(spec.output_size);
    at::Tensor grad = widened(take(g));
    at::Tensor gx;
    switch (spec.mode) {
      case InterpolateMode::Nearest: gx = at::upsample_nearest2d_backward(grad, out, in); break;
      case InterpolateMode::Bilinear: gx = at::upsample_bilinear2d_backward(grad, out, in, spec.align_corners); break;
      case InterpolateMode::Bicubic: gx = at::upsample_bicubic2d_backward(grad, out, in, spec.align_corners); break;
    }
    return wrap(gx.to(type));
  });
}

T unfold4d(T a, const PoolSpec& spec) {
  return guarded("unfold", [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor y =
        at::im2col(widened(take(a)), sizes(spec.kernel), sizes(spec.dilation), sizes(spec.padding), sizes(spec.stride));
    return wrap(y.to(type));
  });
}

T fold4d(T a, const SpatialDims& output_size, const PoolSpec& spec) {
  return guarded("fold", [&] {
    at::ScalarType type = to_torch(a.dtype());
    at::Tensor y = at::col2im(widened(take(a)), sizes(output_size), sizes(spec.kernel), sizes(spec.dilation),
                              sizes(spec.padding), sizes(spec.stride));
    return wrap(y.to(type));
  });
}

T attention(T q, T k, T v, const std::optional<T>& mask, double scale, bool causal, const AttentionDropout& dropout) {
  return guarded("attention", [&] {
    at::ScalarType type = to_torch(q.dtype());
    at::Tensor query = widened(take(q)), key = widened(take(k)), value = widened(take(v));
    at::Tensor scores = attention_scores(query, key, mask, scale, causal);
    return wrap(at::matmul(attention_dropped(at::softmax(scores, -1), dropout), value).to(type));
  });
}

}  // namespace scorch::backends::libtorch::ops
