// Differential cases: convolution and transposed convolution (1-3 spatial dims, stride, padding,
// dilation, groups, output padding) and their backward ops, pooling (ceil mode, padding
// exclusion, dilation) and backward, adaptive pools, interpolation (every mode, both corner
// conventions) and backward, unfold/fold, attention (with its statistics), the norms and the Adam step. Backward
// ops take cos(forward) as the incoming gradient, so no output shape is written twice.
#include "diff_harness.h"

namespace scorch::differential {
namespace {

ConvSpec conv_spec(SpatialDims stride, SpatialDims padding, SpatialDims dilation, size_t groups,
                   SpatialDims padding_out = {}) {
  if (padding_out.empty()) padding_out.assign(stride.size(), 0);
  return ConvSpec{std::move(stride), std::move(padding), std::move(dilation), std::move(padding_out), groups};
}

PoolSpec pool_spec(SpatialDims kernel, SpatialDims stride, SpatialDims padding, SpatialDims dilation, bool ceil,
                   bool include_pad) {
  return PoolSpec{std::move(kernel), std::move(stride), std::move(padding), std::move(dilation), ceil, include_pad};
}

/// Three convolutions: 2-d grouped, strided and dilated on a transposed view; 1-d; 3-d in f64.
struct ConvCase {
  std::vector<InputSpec> inputs;
  ConvSpec spec;
};
std::vector<ConvCase> convs() {
  return {{{in({2, 4, 7, 6}, DType::F32, Domain::Normal, kT), in({6, 2, 3, 3}), in({6})},
           conv_spec({2, 1}, {1, 2}, {1, 2}, 2)},
          {{in({2, 3, 10}), in({4, 3, 3}, DType::F32, Domain::Normal, kS), in({4})}, conv_spec({2}, {1}, {1}, 1)},
          {{in({1, 2, 5, 4, 4}, DType::F64), in({3, 2, 2, 2, 2}, DType::F64), in({3}, DType::F64)},
           conv_spec({1, 2, 1}, {0, 1, 1}, {1, 1, 2}, 1)},
          {{in({2, 2, 6, 6}, DType::F16), in({4, 2, 3, 3}, DType::F16), in({4}, DType::F16)},
           conv_spec({1, 1}, {1, 1}, {1, 1}, 1)}};
}
std::vector<ConvCase> conv_transposes() {
  return {{{in({2, 4, 5, 5}), in({4, 3, 3, 3}), in({3})}, conv_spec({2, 2}, {1, 1}, {1, 1}, 1, {1, 0})},
          {{in({2, 2, 6}, DType::F32, Domain::Normal, kS), in({2, 2, 4}), in({4})}, conv_spec({3}, {1}, {1}, 2, {2})},
          {{in({1, 2, 3, 4, 3}, DType::F64), in({2, 2, 2, 3, 2}, DType::F64), in({2}, DType::F64)},
           conv_spec({2, 1, 2}, {0, 1, 0}, {1, 2, 1}, 1)}};
}

void convolutions(DiffList& list) {
  CaseOptions acc;
  acc.tol_scale = 10;  // sums of up to a hundred products
  for (const auto& c : convs()) {
    ConvSpec spec = c.spec;
    list.add_grad(
        "module_conv", {"module_conv"}, c.inputs,
        [spec](auto tag, auto& in) {
          using B = typename decltype(tag)::type;
          using M = ModuleOpsOf<B>;
          return std::vector<Value<B>>{{M::conv(in.f(0), in.f(1), in.f(2), spec), {}, {}},
                                       {M::conv(in.f(0), in.f(1), std::nullopt, spec), {}, {}}};
        },
        acc);
    list.add(
        "module_conv_backward", {"module_conv_backward"}, c.inputs,
        [spec](auto tag, auto& in) {
          using B = typename decltype(tag)::type;
          using M = ModuleOpsOf<B>;
          // The output's values read back, so that g is the same on every stack: Fusion computes a cos that
          // follows the convolution in its epilogue, before rounding to f16, and the case checks conv_backward.
          auto out = KindOps<B, Float>::into_data(M::conv(in.f(0), in.f(1), in.f(2), spec));
          auto g = KindOps<B, Float>::cos(KindOps<B, Float>::from_data(std::move(out), typename B::Device{}));
          auto grads = M::conv_backward(in.f(0), in.f(1), true, g, spec);
          return std::vector<Value<B>>{{grads.x, {}, {}}, {grads.weight, {}, {}}, {*grads.bias, {}, {}}};
        },
        acc);
  }
  for (const auto& c : conv_transposes()) {
    ConvSpec spec = c.spec;
    list.add_grad(
        "module_conv_transpose", {"module_conv_transpose"}, c.inputs,
        [spec](auto tag, auto& in) {
          using B = typename decltype(tag)::type;
          using M = ModuleOpsOf<B>;
          return std::vector<Value<B>>{{M::conv_transpose(in.f(0), in.f(1), in.f(2), spec), {}, {}}};
        },
        acc);
    list.add(
        "module_conv_transpose_backward", {"module_conv_transpose_backward"}, c.inputs,
        [spec](auto tag, auto& in) {
          using B = typename decltype(tag)::type;
          using M = ModuleOpsOf<B>;
          auto g = KindOps<B, Float>::cos(M::conv_transpose(in.f(0), in.f(1), in.f(2), spec));
          auto grads = M::conv_transpose_backward(in.f(0), in.f(1), true, g, spec);
          return std::vector<Value<B>>{{grads.x, {}, {}}, {grads.weight, {}, {}}, {*grads.bias, {}, {}}};
        },
        acc);
  }
}

struct PoolCase {
  InputSpec input;
  PoolSpec spec;
};

void pools(DiffList& list) {
  const std::vector<PoolCase> avg = {
      {in({2, 3, 7, 8}, DType::F32, Domain::Normal, kT), pool_spec({3, 2}, {2, 2}, {1, 0}, {1, 1}, true, false)},
      {in({2, 3, 9}), pool_spec({3}, {2}, {1}, {1}, false, true)},
      {in({1, 2, 5, 6, 4}, DType::F64), pool_spec({2, 3, 2}, {2, 2, 1}, {1, 1, 0}, {1, 1, 1}, true, true)}};
  for (const auto& c : avg) {
    PoolSpec spec = c.spec;
    list.add_grad("module_avg_pool", {"module_avg_pool"}, {c.input}, [spec](auto tag, auto& in) {
      using B = typename decltype(tag)::type;
      return std::vector<Value<B>>{{ModuleOpsOf<B>::avg_pool(in.f(0), spec), {}, {}}};
    });
    list.add("module_avg_pool_backward", {"module_avg_pool_backward"}, {c.input}, [spec](auto tag, auto& in) {
      using B = typename decltype(tag)::type;
      using M = ModuleOpsOf<B>;
      auto g = KindOps<B, Float>::cos(M::avg_pool(in.f(0), spec));
      return std::vector<Value<B>>{{M::avg_pool_backward(in.f(0), g, spec), {}, {}}};
    });
  }
  const std::vector<PoolCase> max = {
      {in({2, 3, 7, 8}, DType::F32, Domain::Normal, kS), pool_spec({3, 2}, {2, 2}, {1, 1}, {2, 1}, true, true)},
      {in({2, 3, 11}), pool_spec({4}, {3}, {2}, {1}, false, true)},
      {in({1, 2, 5, 6, 4}, DType::F64), pool_spec({2, 2, 2}, {1, 2, 2}, {0, 1, 0}, {1, 1, 1}, false, true)},
      {with_edges(in({1, 2, 6, 6})), pool_spec({2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true)}};
  for (const auto& c : max) {
    PoolSpec spec = c.spec;
    list.add_grad("module_max_pool", {"module_max_pool", "module_max_pool_with_indices"}, {c.input},
                  [spec](auto tag, auto& in) {
                    using B = typename decltype(tag)::type;
                    using M = ModuleOpsOf<B>;
                    auto [y, idx] = M::max_pool_with_indices(in.f(0), spec);
                    return std::vector<Value<B>>{{M::max_pool(in.f(0), spec), {}, {}}, {y, {}, {}}, {{}, idx, {}}};
                  });
    list.add("module_max_pool_backward", {"module_max_pool_backward"}, {c.input}, [spec](auto tag, auto& in) {
      using B = typename decltype(tag)::type;
      using M = ModuleOpsOf<B>;
      auto [y, idx] = M::max_pool_with_indices(in.f(0), spec);
      return std::vector<Value<B>>{{M::max_pool_backward(in.f(0), KindOps<B, Float>::cos(y), idx), {}, {}}};
    });
  }
}

void adaptive_pools(DiffList& list) {
  const std::vector<std::pair<InputSpec, SpatialDims>> cases = {
      {in({2, 3, 7, 9}, DType::F32, Domain::Normal, kT), {3, 4}},
      {in({2, 3, 10}), {4}},
      {in({1, 2, 5, 6, 7}, DType::F64), {2, 3, 4}},
      {in({1, 2, 4, 6}), {8, 5}}};
  for (const auto& [input, out] : cases) {
    SpatialDims size = out;
    list.add_grad(
        "module_adaptive_pool", {"module_adaptive_avg_pool", "module_adaptive_max_pool_with_indices"}, {input},
        [size](auto tag, auto& in) {
          using B = typename decltype(tag)::type;
          using M = ModuleOpsOf<B>;
          auto [y, idx] = M::adaptive_max_pool_with_indices(in.f(0), size);
          return std::vector<Value<B>>{{M::adaptive_avg_pool(in.f(0), size), {}, {}}, {y, {}, {}}, {{}, idx, {}}};
        });
    list.add("module_adaptive_avg_pool_backward", {"module_adaptive_avg_pool_backward"}, {input},
             [size](auto tag, auto& in) {
               using B = typename decltype(tag)::type;
               using M = ModuleOpsOf<B>;
               auto g = KindOps<B, Float>::cos(M::adaptive_avg_pool(in.f(0), size));
               return std::vector<Value<B>>{{M::adaptive_avg_pool_backward(in.f(0), g), {}, {}}};
             });
  }
}

void interpolation(DiffList& list) {
  CaseOptions acc;
  acc.tol_scale = 10;
  for (auto mode : {InterpolateMode::Nearest, InterpolateMode::Bilinear, InterpolateMode::Bicubic})
    for (bool corners : {false, true}) {
      if (mode == InterpolateMode::Nearest && corners) continue;
      for (SpatialDims out : {SpatialDims{7, 4}, SpatialDims{11, 13}}) {
        InterpolateSpec spec{out, mode, corners};
        InputSpec x = in({2, 3, 5, 6}, out[0] == 7 ? DType::F32 : DType::F64, Domain::Normal,
                         out[0] == 7 ? kT : Layout::Contiguous);
        list.add_grad(
            "module_interpolate", {"module_interpolate"}, {x},
            [spec](auto tag, auto& in) {
              using B = typename decltype(tag)::type;
              return std::vector<Value<B>>{{ModuleOpsOf<B>::interpolate(in.f(0), spec), {}, {}}};
            },
            acc);
        list.add(
            "module_interpolate_backward", {"module_interpolate_backward"}, {x},
            [spec](auto tag, auto& in) {
              using B = typename decltype(tag)::type;
              using M = ModuleOpsOf<B>;
              auto g = KindOps<B, Float>::cos(M::interpolate(in.f(0), spec));
              return std::vector<Value<B>>{{M::interpolate_backward(in.f(0), g, spec), {}, {}}};
            },
            acc);
      }
    }
}

void unfold_fold_attention(DiffList& list) {
  PoolSpec spec = pool_spec({2, 3}, {2, 1}, {1, 0}, {1, 2}, false, true);
  for (const auto& x : {in({2, 3, 6, 7}), in({1, 2, 5, 8}, DType::F64, Domain::Normal, kT)}) {
    SpatialDims size{x.shape[2], x.shape[3]};
    list.add_grad("module_unfold", {"module_unfold", "module_fold"}, {x}, [spec, size](auto tag, auto& in) {
      using B = typename decltype(tag)::type;
      using M = ModuleOpsOf<B>;
      auto cols = M::unfold(in.f(0), spec);
      return std::vector<Value<B>>{{cols, {}, {}}, {M::fold(KindOps<B, Float>::sin(cols), size, spec), {}, {}}};
    });
  }
  Variants qkv = {
      {in({2, 3, 5, 4}), in({2, 3, 6, 4}), in({2, 3, 6, 4}, DType::F32, Domain::Normal, kT), mask({1, 1, 5, 6})},
      {in({1, 2, 4, 8}, DType::F64), in({1, 2, 4, 8}, DType::F64, Domain::Normal, kS), in({1, 2, 4, 8}, DType::F64),
       mask({1, 2, 4, 4})}};
  // Dropout's mask is a function of its seed on every backend, so the backends agree with it on too.
  each<true>(list, "module_attention", qkv,
             SCORCH_DIFF_BODY(fo(M::attention(in.f(0), in.f(1), in.f(2), std::nullopt, 0.5, false, {})),
                              fo(M::attention(in.f(0), in.f(1), in.f(2), std::optional<typename B::BoolTensor>(in.b(3)),
                                              0.35, false, {})),
                              fo(M::attention(in.f(0), in.f(1), in.f(2), std::nullopt, 0.3, true, {})),
                              fo(M::attention(in.f(0), in.f(1), in.f(2), std::nullopt, 0.3, true, {0.4, 77}))));
  // Autodiff records attention with its statistics and differentiates it through attention_backward.
  each<true>(
      list, "module_attention_with_stats", qkv,
      SCORCH_DIFF_BODY(fo(M::attention_with_stats(in.f(0), in.f(1), in.f(2),
                                                  std::optional<typename B::BoolTensor>(in.b(3)), 0.4, false, {})
                              .first),
                       fo(M::attention_with_stats(in.f(0), in.f(1), in.f(2), std::nullopt, 0.4, true, {}).first),
                       fo(M::attention_with_stats(in.f(0), in.f(1), in.f(2),
                                                  std::optional<typename B::BoolTensor>(in.b(3)), 0.4, false, {0.25, 5})
                              .first)),
      {"module_attention_with_stats", "module_attention_backward"});
  each<false>(
      list, "module_attention_with_stats", qkv,
      SCORCH_DIFF_BODY(fo(M::attention_with_stats(in.f(0), in.f(1), in.f(2), std::nullopt, 0.6, true, {}).second)));
}

void norms(DiffList& list) {
  Variants inputs = {{in({4, 6, 33}), in({33}), in({33})},
                     {in({3, 7}, DType::F64, Domain::Normal, kT), in({7}, DType::F64), in({7}, DType::F64)}};
  each<true>(list, "module_layer_norm", inputs,
             SCORCH_DIFF_BODY(fo(M::layer_norm(in.f(0), std::optional(in.f(1)), std::optional(in.f(2)), 1e-5)),
                              fo(M::layer_norm(in.f(0), std::nullopt, std::nullopt, 1e-3))),
             {"module_layer_norm", "module_layer_norm_backward"});
  each<true>(list, "module_rms_norm", inputs,
             SCORCH_DIFF_BODY(fo(M::rms_norm(in.f(0), std::optional(in.f(1)), 1e-5)),
                              fo(M::rms_norm(in.f(0), std::nullopt, 1e-2))),
             {"module_rms_norm", "module_rms_norm_backward"});
}

// Each row's cross-entropy (with its gradient through cross_entropy_backward) and log-sum-exp.
void cross_entropy(DiffList& list) {
  Variants inputs = {{in({6, 11}), index({6}, 11)}, {in({4, 5}, DType::F64), index({4}, 5)}};
  each<true>(list, "module_cross_entropy", inputs, SCORCH_DIFF_BODY(fo(M::cross_entropy(in.f(0), in.i(1)).first)),
             {"module_cross_entropy", "module_cross_entropy_backward"});
  each<false>(list, "module_cross_entropy", inputs, SCORCH_DIFF_BODY(fo(M::cross_entropy(in.f(0), in.i(1)).second)));
}

// linear with bias and relu (its gradient through linear_backward), and without bias.
void linear(DiffList& list) {
  Variants inputs = {{in({6, 9}), in({9, 5}), in({5})},
                     {in({3, 4}, DType::F64), in({4, 7}, DType::F64), in({7}, DType::F64)}};
  each<true>(list, "module_linear", inputs,
             SCORCH_DIFF_BODY(fo(M::linear(in.f(0), in.f(1), std::optional(in.f(2)), true)),
                              fo(M::linear(in.f(0), in.f(1), std::nullopt, false))),
             {"module_linear", "module_linear_backward"});
}

// One Adam step (L2 decay) and one AdamW step (decoupled decay); the second moment is positive.
void optimizer_steps(DiffList& list) {
  Variants inputs = {
      {in({5, 7}), in({5, 7}), in({5, 7}), in({5, 7}, DType::F32, Domain::Positive)},
      {in({9}, DType::F64), in({9}, DType::F64), in({9}, DType::F64), in({9}, DType::F64, Domain::Positive)}};
  each<false>(list, "module_adam_update", inputs, SCORCH_DIFF_BODY([&] {
                auto w = M::adam_update(in.f(0), in.f(1), in.f(2), in.f(3), 1e-2, 0.9, 0.999, 1e-8, 0.1, true, 3.0);
                auto a = M::adam_update(in.f(0), in.f(1), in.f(2), in.f(3), 2e-2, 0.8, 0.99, 1e-6, 0.05, false, 1.0);
                return std::vector<V>{fo(w.param), fo(w.moment_1), fo(w.moment_2), fo(a.param)};
              }()));
  // The multi-tensor steps over the two parameters [5, 7] and [9] of one dtype.
  Variants lists = {{in({5, 7}), in({5, 7}), in({5, 7}), in({5, 7}, DType::F32, Domain::Positive), in({9}), in({9}),
                     in({9}), in({9}, DType::F32, Domain::Positive)}};
  each<false>(list, "module_adam_update_many", lists, SCORCH_DIFF_BODY([&] {
                auto r = M::adam_update_many({in.f(0), in.f(4)}, {in.f(1), in.f(5)}, {in.f(2), in.f(6)},
                                             {in.f(3), in.f(7)}, {1e-2, 0.9, 0.999, 1e-8, 0.1, true, 3.0});
                return std::vector<V>{fo(r[0].param), fo(r[0].moment_2), fo(r[1].param), fo(r[1].moment_1)};
              }()));
  each<false>(list, "module_sgd_update_many", lists, SCORCH_DIFF_BODY([&] {
                auto r = M::sgd_update_many({in.f(0), in.f(4)}, {in.f(1), in.f(5)}, {in.f(2), in.f(6)},
                                            {0.1, 1e-3, 0.9, 0.1, true, true});
                auto first = M::sgd_update_many({in.f(0)}, {in.f(1)}, {}, {0.1, 0.0, 0.9, 0.0, true, false});
                return std::vector<V>{fo(r[0].param), fo(*r[0].velocity), fo(r[1].param), fo(first[0].param)};
              }()));
}

// Quantization: int8 per channel (scales from an input, some values saturating) and back, q4 blocks, and
// quantized_linear with a dynamic uint8 input and a per-column int8 weight: the Cpu's integer kernel against
// LibTorch's composition.
void quantization(DiffList& list) {
  Variants inputs = {{in({6, 8}), in({6, 1}, DType::F32, Domain::Positive), in({6, 2}, DType::F32, Domain::Positive)},
                     {in({4, 12}, DType::F32, Domain::Normal, kT), in({4, 1}, DType::F32, Domain::Positive),
                      in({4, 3}, DType::F32, Domain::Positive)}};
  each<false>(list, "module_quantize", inputs, SCORCH_DIFF_BODY([&] {
                auto x = in.f(0);
                auto scales = F::mul_scalar(in.f(1), Scalar(0.02)), blocks = F::mul_scalar(in.f(2), Scalar(0.2));
                auto zero = I::zeros(Shape{1, 1}, x.device(), DType::I32);
                auto per_channel = QuantScheme::int8_per_channel(0), q4 = QuantScheme::q4_blocks(1, 4);
                auto q = M::quantize(x, scales, zero, per_channel), p = M::quantize(x, blocks, zero, q4);
                return std::vector<V>{io(q), fo(M::dequantize(q, scales, zero, per_channel, DType::F32)), io(p),
                                      fo(M::dequantize(p, blocks, zero, q4, DType::F32))};
              }()),
              {"module_quantize", "module_dequantize"});
  Variants linear = {
      {in({6, 8}), small({8, 5}, 120, DType::I8), in({1, 5}, DType::F32, Domain::Positive), in({5})},
      {in({3, 16}), small({16, 4}, 127, DType::I8, kT), in({1, 4}, DType::F32, Domain::Positive), in({4})}};
  each<false>(list, "module_quantized_linear", linear, SCORCH_DIFF_BODY([&] {
                auto zero = I::zeros(Shape{1, 1}, in.f(0).device(), DType::I32);
                auto s = QuantScheme::int8_per_channel(1);
                auto y = M::quantized_linear(in.f(0), in.i(1), in.f(2), zero, in.f(3), s, InputQuant{}, true);
                InputQuant fixed{false, false, QuantValue::UInt8, 0.02, 100};
                return std::vector<V>{
                    fo(y), fo(M::quantized_linear(in.f(0), in.i(1), in.f(2), zero, std::nullopt, s, fixed, false))};
              }()));
}

}  // namespace

void add_module_cases(DiffList& list) {
  convolutions(list);
  pools(list);
  adaptive_pools(list);
  interpolation(list);
  unfold_fold_attention(list);
  norms(list);
  cross_entropy(list);
  linear(list);
  optimizer_steps(list);
  quantization(list);
}

}  // namespace scorch::differential
