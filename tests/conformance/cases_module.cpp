// Conformance cases: module ops (convolution, transposed convolution, pooling, adaptive pooling,
// interpolation, unfold/fold, attention, normalization), forward. The gradients are in cases_module_grad.cpp.
#include "harness.h"
#include "module_aliases.h"
#include "scorch/tensor/quantized.h"

namespace scorch::conformance {
namespace {
using namespace module_aliases;
constexpr mod::InterpolateOptions kNearest{InterpolateMode::Nearest, false};
constexpr mod::InterpolateOptions kBilinear{InterpolateMode::Bilinear, false};
constexpr mod::InterpolateOptions kBilinearAC{InterpolateMode::Bilinear, true};
constexpr mod::InterpolateOptions kBicubic{InterpolateMode::Bicubic, false};
constexpr mod::InterpolateOptions kBicubicAC{InterpolateMode::Bicubic, true};
}  // namespace

template <class B> void add_module_cases(CaseList<B>& list) {
  // ---- convolution; weights [out, in/groups, kernel...]
  list.add("mod_conv1d", {"module_conv"}, [](const Inputs<B>& in) {
    auto x = F<3>(in, 0);
    return outs(mod::conv1d<B>(x, F<3>(in, 1), F<1>(in, 2), C1{{2}, {1}, {2}, 2}),
                mod::conv1d<B>(x, F<3>(in, 3), std::nullopt));
  });
  list.add("mod_conv2d", {"module_conv"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0), w = F<4>(in, 1);
    auto b = F<1>(in, 2);
    return outs(mod::conv2d<B>(x, w, b, C2{{1, 1}, {1, 1}}), mod::conv2d<B>(x, w, b, C2{{2, 1}, {0, 2}, {1, 2}}));
  });
  list.add("mod_conv2d_groups", {"module_conv"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    return outs(
        mod::conv2d<B>(x, F<4>(in, 1), F<1>(in, 2), C2{{1, 2}, {1, 0}, {1, 1}, 2}),
        mod::conv2d<B>(x, F<4>(in, 3), std::nullopt, C2{{1, 1}, {1, 1}, {1, 1}, 4}));  // depthwise, 2 per channel
  });
  // Non-contiguous inputs: x and w stored [.., w, h] and swapped; xh stored channels-last.
  list.add("mod_conv2d_strided", {"module_conv"}, [](const Inputs<B>& in) {
    auto w = F<4>(in, 1);
    auto b = F<1>(in, 2);
    return outs(mod::conv2d<B>(F<4>(in, 0).swap_dims(2, 3), w.swap_dims(2, 3), b, C2{{2, 2}, {1, 1}}),
                mod::conv2d<B>(F<4>(in, 3).permute({0, 3, 1, 2}), w, b));
  });
  list.add("mod_conv2d_f64", {"module_conv"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0), w = F<4>(in, 1);
    return outs(mod::conv2d<B>(x, w, F<1>(in, 2), C2{{1, 1}, {1, 0}}),
                mod::conv2d<B>(x, w, std::nullopt, C2{{2, 2}, {0, 0}, {2, 1}}));
  });
  list.add("mod_conv3d", {"module_conv"}, [](const Inputs<B>& in) {
    auto x = F<5>(in, 0);
    return outs(mod::conv3d<B>(x, F<5>(in, 1), F<1>(in, 2)),
                mod::conv3d<B>(x, F<5>(in, 3), std::nullopt, C3{{2, 1, 1}, {1, 0, 1}, {1, 2, 1}, 2}));
  });
  // ---- transposed convolution; weights [in, out/groups, kernel...]; options {stride, padding, padding_out, dilation,
  // groups}
  list.add("mod_conv_transpose1d", {"module_conv_transpose"}, [](const Inputs<B>& in) {
    auto x = F<3>(in, 0);
    return outs(mod::conv_transpose1d<B>(x, F<3>(in, 1), F<1>(in, 2), T1{{2}, {1}, {1}, {1}, 2}),
                mod::conv_transpose1d<B>(x, F<3>(in, 3), std::nullopt, T1{{3}, {2}, {1}, {2}}));
  });
  list.add("mod_conv_transpose2d", {"module_conv_transpose"}, [](const Inputs<B>& in) {
    return outs(
        mod::conv_transpose2d<B>(F<4>(in, 0), F<4>(in, 1), F<1>(in, 2), T2{{2, 1}, {1, 0}, {1, 0}, {1, 2}}),
        mod::conv_transpose2d<B>(F<4>(in, 3), F<4>(in, 4), std::nullopt, T2{{2, 2}, {0, 0}, {0, 0}, {1, 1}, 2}));
  });
  list.add("mod_conv_transpose3d", {"module_conv_transpose"}, [](const Inputs<B>& in) {
    return outs(mod::conv_transpose3d<B>(F<5>(in, 0), F<5>(in, 1), F<1>(in, 2), T3{{2, 1, 2}, {0, 1, 1}, {1, 0, 0}}));
  });

  // ---- average pooling: (kernel, stride, padding, count_include_pad, ceil_mode)
  list.add("mod_avg_pool1d", {"module_avg_pool"}, [](const Inputs<B>& in) {
    auto x = F<3>(in, 0);
    return outs(mod::avg_pool1d(x, 3, 2, 1, true, false), mod::avg_pool1d(x, 3, 2, 1, false, false),
                mod::avg_pool1d(x, 4, 3, 1, false, true), mod::avg_pool1d(x, 2, 2, 0, true, true),
                mod::avg_pool1d(x, 4, 3, 2, true, true));
  });
  list.add("mod_avg_pool2d", {"module_avg_pool"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    return outs(mod::avg_pool2d(x, {3, 2}, {2, 2}, {1, 1}, true, false),
                mod::avg_pool2d(x, {3, 2}, {2, 2}, {1, 1}, false, false),
                mod::avg_pool2d(x, {2, 3}, {2, 2}, {0, 1}, false, true),
                mod::avg_pool2d(x, {2, 2}, {2, 2}, {0, 0}, true, true),
                mod::avg_pool2d(x.swap_dims(2, 3), {3, 3}, {2, 2}, {1, 1}));
  });
  list.add("mod_avg_pool2d_f64", {"module_avg_pool"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    return outs(mod::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, true),
                mod::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, true, true));
  });

  // ---- max pooling: (kernel, stride, padding, dilation, ceil_mode); indices flat per channel
  list.add("mod_max_pool1d", {"module_max_pool", "module_max_pool_with_indices"}, [](const Inputs<B>& in) {
    auto x = F<3>(in, 0);
    auto [v, i] = mod::max_pool1d_with_indices(x, 3, 2, 1, 2);
    return outs(mod::max_pool1d(x, 3, 2, 1), mod::max_pool1d(x, 3, 3, 0, 1, true), v, i);
  });
  list.add("mod_max_pool2d", {"module_max_pool", "module_max_pool_with_indices"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    auto [v, i] = mod::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}, {1, 2}, true);
    auto [vt, it] = mod::max_pool2d_with_indices(x.swap_dims(2, 3), {2, 2}, {2, 2}, {0, 0});
    return outs(mod::max_pool2d(x, {3, 2}, {2, 1}, {1, 1}), v, i, vt, it);
  });
  list.add("mod_max_pool2d_f64", {"module_max_pool", "module_max_pool_with_indices"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    auto [v, i] = mod::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1});
    return outs(v, i, mod::max_pool2d(x, {2, 2}, {1, 1}, {0, 0}));
  });

  // ---- adaptive pooling
  list.add("mod_adaptive_avg_pool", {"module_adaptive_avg_pool"}, [](const Inputs<B>& in) {
    auto x1 = F<3>(in, 0);
    auto x2 = F<4>(in, 1);
    return outs(mod::adaptive_avg_pool1d(x1, 3), mod::adaptive_avg_pool1d(x1, 10), mod::adaptive_avg_pool2d(x2, {4, 3}),
                mod::adaptive_avg_pool2d(x2, {6, 7}), mod::adaptive_avg_pool2d(x2, {1, 1}));
  });
  list.add("mod_adaptive_max_pool", {"module_adaptive_max_pool_with_indices"}, [](const Inputs<B>& in) {
    auto x2 = F<4>(in, 0);
    auto x1 = F<3>(in, 1);
    auto [v2, i2] = mod::adaptive_max_pool_with_indices(x2, mod::Size<2>{3, 4});
    auto [v1, i1] = mod::adaptive_max_pool_with_indices(x1, mod::Size<1>{3});
    auto [vu, iu] = mod::adaptive_max_pool_with_indices(x1, mod::Size<1>{10});
    return outs(v2, i2, v1, i1, vu, iu, mod::adaptive_max_pool2d(x2, {7, 2}));
  });

  // ---- interpolation
  list.add("mod_interpolate_nearest", {"module_interpolate"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    return outs(mod::interpolate(x, {8, 10}, kNearest), mod::interpolate(x, {3, 4}, kNearest),
                mod::interpolate(x, {10, 14}), mod::interpolate(x.swap_dims(2, 3), {4, 9}, kNearest));
  });
  list.add("mod_interpolate_bilinear", {"module_interpolate"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    return outs(mod::interpolate(x, {8, 10}, kBilinear), mod::interpolate(x, {8, 10}, kBilinearAC),
                mod::interpolate(x, {3, 4}, kBilinear), mod::interpolate(x, {3, 4}, kBilinearAC),
                mod::interpolate(x, {1, 3}, kBilinearAC), mod::interpolate(x.swap_dims(2, 3), {9, 4}, kBilinear));
  });
  list.add("mod_interpolate_bicubic", {"module_interpolate"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    return outs(mod::interpolate(x, {9, 7}, kBicubic), mod::interpolate(x, {9, 7}, kBicubicAC),
                mod::interpolate(x, {4, 3}, kBicubic), mod::interpolate(x, {4, 3}, kBicubicAC));
  });

  // ---- unfold / fold: options {stride, padding, dilation}
  list.add("mod_unfold", {"module_unfold"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0);
    return outs(mod::unfold4d(x, {3, 2}), mod::unfold4d(x, {3, 3}, U2{{2, 1}, {1, 2}, {1, 2}}),
                mod::unfold4d(x.swap_dims(2, 3), {2, 2}, U2{{2, 2}}));
  });
  list.add("mod_fold", {"module_fold"}, [](const Inputs<B>& in) {
    return outs(mod::fold4d(F<3>(in, 0), {7, 5}, {3, 2}, U2{{2, 1}, {1, 0}, {1, 2}}),
                mod::fold4d(F<3>(in, 1), {4, 5}, {2, 2}, U2{{2, 2}}));
  });

  // ---- attention: mask true = ignore that key
  list.add("mod_attention", {"module_attention"}, [](const Inputs<B>& in) {
    auto q = F<4>(in, 0), k = F<4>(in, 1), v = F<4>(in, 2);
    return outs(mod::attention<B>(q, k, v), mod::attention<B>(q, k, v, std::nullopt, 0.3));
  });
  list.add("mod_attention_mask", {"module_attention"}, [](const Inputs<B>& in) {
    auto q = F<4>(in, 0), k = F<4>(in, 1), v = F<4>(in, 2);
    auto causal = Bo<4>(in, 3), m = Bo<4>(in, 4);
    return outs(mod::attention<B>(q, k, v, causal), mod::attention<B>(q, k, v, m),
                mod::attention<B>(q, k, v, causal, 0.7), mod::attention<B>(q, k, v, m.slice({Slice(), Slice(0, 1)})));
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_module_cases);

// Fused ops: attention with its statistics, layer norm and RMS norm.
template <class B> void add_fused_cases(CaseList<B>& list) {
  // attention_with_stats: the output and each query's log-sum-exp (f32 for f16/bf16 inputs, compared in the
  // inputs' dtype), with a mask and without
  list.add("mod_attention_stats", {"module_attention_with_stats"}, [](const Inputs<B>& in) {
    auto q = F<4>(in, 0), k = F<4>(in, 1), v = F<4>(in, 2);
    auto [out, lse] = mod::attention_with_stats<B>(q, k, v, Bo<4>(in, 3));
    auto [out1, lse1] = mod::attention_with_stats<B>(q, k, v, std::nullopt, 0.3);
    return outs(out, lse.cast(q.dtype()), out1, lse1.cast(q.dtype()));
  });
  // A query whose keys are all masked: its output is NaN and its log-sum-exp -inf, as PyTorch's
  list.add("mod_attention_stats_masked_row", {"module_attention_with_stats"}, [](const Inputs<B>& in) {
    auto [out, lse] = mod::attention_with_stats<B>(F<4>(in, 0), F<4>(in, 1), F<4>(in, 2), Bo<4>(in, 3));
    return outs(out, lse.cast(out.dtype()));
  });
  // cross-entropy of logits [rows, classes] with class targets: per row, its log-sum-exp (both f32 for f16/bf16,
  // compared in the logits' dtype) and the logits' gradient for a per-row gradient
  list.add("mod_cross_entropy", {"module_cross_entropy", "module_cross_entropy_backward"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto t = I<1>(in, 1);
    auto [nll, lse] = mod::cross_entropy_with_stats<B>(x, t);
    return outs(nll.cast(x.dtype()), lse.cast(x.dtype()), mod::cross_entropy_backward<B>(x, t, lse, F<1>(in, 2)));
  });
  // linear: x·w + b, with relu, without bias; the gradients with relu and bias, without either, with bias alone
  list.add("mod_linear", {"module_linear", "module_linear_backward"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0), w = F<2>(in, 1), g = F<2>(in, 3);
    std::optional<Tensor<B, 1>> b = F<1>(in, 2);
    auto y = mod::linear<B>(x, w, b), yr = mod::linear<B>(x, w, b, true), y0 = mod::linear<B>(x, w);
    auto r = mod::linear_backward<B>(x, w, true, true, yr, g);
    auto r0 = mod::linear_backward<B>(x, w, false, false, y0, g);
    auto rb = mod::linear_backward<B>(x, w, true, false, y, g);
    return outs(y, yr, y0, r.x, r.weight, *r.bias, r0.x, r0.weight, rb.x, *rb.bias);
  });
  // causal (PyTorch's is_causal, top-left aligned): alone with its log-sum-exp, with a mask, with a scale, with more
  // queries than keys, and the gradients with the mask
  list.add("mod_attention_causal", {"module_attention", "module_attention_with_stats", "module_attention_backward"},
           [](const Inputs<B>& in) {
             auto q = F<4>(in, 0), k = F<4>(in, 1), v = F<4>(in, 2), g = F<4>(in, 4);
             auto m = Bo<4>(in, 3);
             auto [out, lse] = mod::attention_with_stats<B>(q, k, v, std::nullopt, std::nullopt, true);
             auto [masked, masked_lse] = mod::attention_with_stats<B>(q, k, v, m, std::nullopt, true);
             auto r = mod::attention_backward<B>(q, k, v, masked, masked_lse, g, m, std::nullopt, true);
             return outs(out, lse.cast(q.dtype()), masked, mod::attention<B>(q, k, v, std::nullopt, 0.5, true),
                         mod::attention<B>(k, q, g, std::nullopt, std::nullopt, true), r.q, r.k, r.v);
           });

  // ---- normalization over the last dim: x, gamma, beta
  list.add("mod_layer_norm", {"module_layer_norm"}, [](const Inputs<B>& in) {
    auto x = F<3>(in, 0);
    std::optional<Tensor<B, 1>> g = F<1>(in, 1), b = F<1>(in, 2), none;
    return outs(mod::layer_norm(x, g, b), mod::layer_norm(x, none, none, 1e-3), mod::layer_norm(x, g, none),
                mod::layer_norm(x, none, b, 0.5));
  });
  list.add("mod_rms_norm", {"module_rms_norm"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    std::optional<Tensor<B, 1>> g = F<1>(in, 1);
    return outs(mod::rms_norm(x, g), mod::rms_norm(x, std::optional<Tensor<B, 1>>{}, 1e-2));
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_fused_cases);

// ---- quantization (fixtures: gen_quant_fixtures.py, from PyTorch's quantized ops and observers)
namespace {
/// Parameters of shape `shape` holding values, as float scales or int offsets.
template <class B, class K, size_t D>
Tensor<B, D, K> params(const std::vector<double>& values, const Shape& shape, const typename B::Device& device) {
  Tensor<B, 1> t = Tensor<B, 1>::from_data(TensorData(values, Shape{values.size()}), device);
  if constexpr (std::same_as<K, Int>) return t.int_().cast(DType::I32).template reshape<D>(shape);
  else return t.template reshape<D>(shape);
}
}  // namespace

template <class B> void add_quant_cases(CaseList<B>& list) {
  list.add("q_per_tensor", {"module_quantize", "module_dequantize"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto one = [&](double v) { return Tensor<B, 2>::full({1, 1}, Scalar(v), x.device()); };
    auto off = [&](int64_t v) { return Tensor<B, 2, Int>::full({1, 1}, Scalar(v), x.device(), DType::I32); };
    auto a = QTensor<B, 2>::quantize_with(x, QuantScheme::int8(), one(0.05), off(3));
    QuantScheme u8{QuantValue::UInt8, QuantMode::Affine, QuantLevel::Tensor, 0, 32};
    auto b = QTensor<B, 2>::quantize_with(x, u8, one(0.02), off(128));
    return outs(a.values, b.values, a.dequantize(x.dtype()), b.dequantize(x.dtype()));
  });
  list.add("q_per_channel", {"module_quantize", "module_dequantize"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto d = x.device();
    auto a = QTensor<B, 2>::quantize_with(x, QuantScheme::int8_per_channel(0),
                                          params<B, Float, 2>({0.01, 0.02, 0.05, 0.1, 0.2}, {5, 1}, d),
                                          params<B, Int, 2>({0, 1, -2, 3, 0}, {5, 1}, d));
    QuantScheme u8{QuantValue::UInt8, QuantMode::Affine, QuantLevel::Channel, 1, 32};
    auto b = QTensor<B, 2>::quantize_with(x, u8, params<B, Float, 2>({0.03, 0.04, 0.05, 0.06}, {1, 4}, d),
                                          params<B, Int, 2>({100, 128, 90, 140}, {1, 4}, d));
    return outs(a.values, b.values, a.dequantize(x.dtype()), b.dequantize(x.dtype()));
  });
  list.add("q_observer_params", {"module_quantize"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto a = QTensor<B, 2>::quantize(x, QuantScheme::int8());
    QuantScheme u8{QuantValue::UInt8, QuantMode::Affine, QuantLevel::Channel, 0, 32};
    auto b = QTensor<B, 2>::quantize(x, u8);
    size_t rows = x.shape()[0];
    return outs(a.scales.template reshape<1>({1}), a.values, b.scales.template reshape<1>({rows}),
                b.offsets.cast(DType::I64).template reshape<1>({rows}), b.values);
  });
  list.add("q_q4_blocks", {"module_quantize", "module_dequantize"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto q = QTensor<B, 2>::quantize(x, QuantScheme::q4_blocks(1, 8));
    return outs(q.scales, q.values, q.dequantize(x.dtype()));
  });
  list.add("q_linear_dynamic", {"module_quantized_linear"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0), w = F<2>(in, 1);
    auto q = QTensor<B, 2>::quantize(w, QuantScheme::int8_per_channel(0));
    auto reduced = q;
    reduced.input.reduce_range = true;
    size_t n = w.shape()[0];
    return outs(q.values, q.scales.template reshape<1>({n}), quant::linear(x, q, true, F<1>(in, 2)),
                quant::linear(x, reduced, true, F<1>(in, 2)));
  });
  list.add("q_linear_static", {"module_quantized_linear"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0);
    auto q = QTensor<B, 2>::quantize(F<2>(in, 1), QuantScheme::int8());
    q.input = InputQuant{false, false, QuantValue::UInt8, 0.02, 110};
    auto b = F<1>(in, 2);
    return outs(q.values, quant::linear(x, q, false, b), quant::linear(x, q, false, b, true));
  });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_quant_cases);

}  // namespace scorch::conformance
