// Gradient cases: module ops (convolution, transposed convolution, pooling, adaptive pooling, interpolation,
// unfold/fold, attention).
#include <optional>
#include <vector>

#include "grad_harness.h"

namespace scorch::gradcheck {
namespace {
namespace mod = ::scorch::functional;
using T1 = Tensor<AD, 1>;
using C1 = mod::ConvOptions<1>;  // {stride, padding, dilation, groups}
using C2 = mod::ConvOptions<2>;
using C3 = mod::ConvOptions<3>;
using X1 = mod::ConvTransposeOptions<1>;  // {stride, padding, padding_out, dilation, groups}
using X2 = mod::ConvTransposeOptions<2>;
using U2 = mod::UnfoldOptions<2>;  // {stride, padding, dilation}
constexpr mod::InterpolateOptions kNearest{InterpolateMode::Nearest, false};
constexpr mod::InterpolateOptions kBilinear{InterpolateMode::Bilinear, false};
constexpr mod::InterpolateOptions kBilinearAC{InterpolateMode::Bilinear, true};
constexpr mod::InterpolateOptions kBicubic{InterpolateMode::Bicubic, false};
constexpr mod::InterpolateOptions kBicubicAC{InterpolateMode::Bicubic, true};

// Inputs x, weight [out, in/groups, kernel...] and (except conv1d_nobias) bias [out].
void add_conv_cases(std::vector<GradCase>& cases) {
  cases.push_back({"conv1d", {"module_conv"}, [](const GradInputs& in) {
                     return flat(mod::conv1d<AD>(in.f<3>(0), in.f<3>(1), in.f<1>(2), C1{{2}, {1}, {2}, 2}));
                   }});
  cases.push_back({"conv1d_nobias", {"module_conv"}, [](const GradInputs& in) {
                     return flat(mod::conv1d<AD>(in.f<3>(0), in.f<3>(1), std::nullopt));
                   }});
  cases.push_back({"conv2d", {"module_conv"}, [](const GradInputs& in) {
                     return flat(mod::conv2d<AD>(in.f<4>(0), in.f<4>(1), in.f<1>(2), C2{{2, 1}, {1, 1}, {1, 2}}));
                   }});
  cases.push_back({"conv2d_groups", {"module_conv"}, [](const GradInputs& in) {
                     return flat(mod::conv2d<AD>(in.f<4>(0), in.f<4>(1), in.f<1>(2), C2{{1, 1}, {1, 0}, {1, 1}, 2}));
                   }});
  cases.push_back({"conv3d", {"module_conv"}, [](const GradInputs& in) {
                     return flat(mod::conv3d<AD>(in.f<5>(0), in.f<5>(1), in.f<1>(2), C3{{1, 1, 1}, {1, 0, 0}}));
                   }});
}

// Inputs x, weight [in, out/groups, kernel...] and (except the grouped 2d case) bias [out].
void add_conv_transpose_cases(std::vector<GradCase>& cases) {
  cases.push_back(
      {"conv_transpose1d", {"module_conv_transpose"}, [](const GradInputs& in) {
         return flat(mod::conv_transpose1d<AD>(in.f<3>(0), in.f<3>(1), in.f<1>(2), X1{{2}, {1}, {1}, {1}, 2}));
       }});
  cases.push_back(
      {"conv_transpose2d", {"module_conv_transpose"}, [](const GradInputs& in) {
         return flat(mod::conv_transpose2d<AD>(in.f<4>(0), in.f<4>(1), in.f<1>(2), X2{{2, 1}, {1, 0}, {1, 0}}));
       }});
  cases.push_back({"conv_transpose2d_groups", {"module_conv_transpose"}, [](const GradInputs& in) {
                     return flat(mod::conv_transpose2d<AD>(in.f<4>(0), in.f<4>(1), std::nullopt,
                                                           X2{{2, 2}, {0, 0}, {0, 0}, {1, 2}, 2}));
                   }});
}

// avg_pool: (kernel, stride, padding, count_include_pad, ceil_mode); max_pool: (kernel, stride, padding, dilation,
// ceil_mode).
void add_pool_cases(std::vector<GradCase>& cases) {
  cases.push_back({"avg_pool1d", {"module_avg_pool"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     return join({flat(mod::avg_pool1d(x, 3, 2, 1, true)), flat(mod::avg_pool1d(x, 3, 2, 1, false))});
                   }});
  cases.push_back({"avg_pool2d", {"module_avg_pool"}, [](const GradInputs& in) {
                     auto x = in.f<4>(0);
                     return join({flat(mod::avg_pool2d(x, {3, 2}, {2, 2}, {1, 1}, true)),
                                  flat(mod::avg_pool2d(x, {3, 2}, {2, 2}, {1, 1}, false)),
                                  flat(mod::avg_pool2d(x, {2, 3}, {2, 2}, {0, 1}, false, true))});
                   }});
  // Inputs without ties.
  cases.push_back(
      {"max_pool1d", {"module_max_pool", "module_max_pool_with_indices"}, [](const GradInputs& in) {
         auto x = in.f<3>(0);
         return join({flat(mod::max_pool1d(x, 3, 2, 1)), flat(mod::max_pool1d_with_indices(x, 3, 2, 1, 2).first)});
       }});
  cases.push_back({"max_pool2d", {"module_max_pool", "module_max_pool_with_indices"}, [](const GradInputs& in) {
                     auto x = in.f<4>(0);
                     return join({flat(mod::max_pool2d(x, {3, 3}, {2, 2}, {1, 1})),
                                  flat(mod::max_pool2d_with_indices(x, {2, 2}, {2, 2}, {0, 0}).first),
                                  flat(mod::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}, {1, 2}, true).first)});
                   }});
  // Inputs x1 [2, 2, 7] and x2 [1, 2, 5, 6]: non-divisible sizes, overlapping windows.
  cases.push_back({"adaptive_avg_pool", {"module_adaptive_avg_pool"}, [](const GradInputs& in) {
                     return join({flat(mod::adaptive_avg_pool1d(in.f<3>(0), 3)),
                                  flat(mod::adaptive_avg_pool2d(in.f<4>(1), {3, 4}))});
                   }});
  cases.push_back({"adaptive_max_pool", {"module_adaptive_max_pool_with_indices"}, [](const GradInputs& in) {
                     return join({flat(mod::adaptive_max_pool1d(in.f<3>(0), 3)),
                                  flat(mod::adaptive_max_pool2d(in.f<4>(1), {3, 4}))});
                   }});
}

// x [1, 2, 4, 5], up- and down-sampled.
void add_interpolate_cases(std::vector<GradCase>& cases) {
  cases.push_back(
      {"interpolate_nearest", {"module_interpolate"}, [](const GradInputs& in) {
         auto x = in.f<4>(0);
         return join({flat(mod::interpolate(x, {7, 8}, kNearest)), flat(mod::interpolate(x, {3, 3}, kNearest))});
       }});
  cases.push_back({"interpolate_bilinear", {"module_interpolate"}, [](const GradInputs& in) {
                     auto x = in.f<4>(0);
                     return join({flat(mod::interpolate(x, {6, 7}, kBilinear)),
                                  flat(mod::interpolate(x, {6, 7}, kBilinearAC)),
                                  flat(mod::interpolate(x, {3, 4}, kBilinear))});
                   }});
  cases.push_back({"interpolate_bicubic", {"module_interpolate"}, [](const GradInputs& in) {
                     auto x = in.f<4>(0);
                     return join({flat(mod::interpolate(x, {6, 7}, kBicubic)),
                                  flat(mod::interpolate(x, {6, 7}, kBicubicAC)),
                                  flat(mod::interpolate(x, {3, 3}, kBicubicAC))});
                   }});
}

void add_unfold_attention_norm_cases(std::vector<GradCase>& cases) {
  cases.push_back({"unfold4d", {"module_unfold"}, [](const GradInputs& in) {
                     return flat(mod::unfold4d(in.f<4>(0), {3, 2}, U2{{2, 1}, {1, 0}, {1, 1}}));
                   }});
  // Columns c [1, 4, 6] → [1, 1, 3, 4] (kernel 2×2, overlapping) and c1 [1, 9, 4] → [1, 1, 4, 4]
  // (kernel 3×3, padding 1, stride 2).
  cases.push_back({"fold4d", {"module_fold"}, [](const GradInputs& in) {
                     return join({flat(mod::fold4d(in.f<3>(0), {3, 4}, {2, 2})),
                                  flat(mod::fold4d(in.f<3>(1), {4, 4}, {3, 3}, U2{{2, 2}, {1, 1}}))});
                   }});
  // q [1, 2, 3, 4], k [1, 2, 5, 4], v [1, 2, 5, 3]; the default scale 1/√d and 0.3.
  cases.push_back(
      {"attention", {"module_attention", "module_attention_with_stats"}, [](const GradInputs& in) {
         auto q = in.f<4>(0), k = in.f<4>(1), v = in.f<4>(2);
         return join({flat(mod::attention<AD>(q, k, v)), flat(mod::attention<AD>(q, k, v, std::nullopt, 0.3))});
       }});
  // A causal mask [1, 1, 4, 4] (true = ignore that key).
  cases.push_back(
      {"attention_mask", {"module_attention", "module_attention_with_stats"}, [](const GradInputs& in) {
         auto q = in.f<4>(0), k = in.f<4>(1), v = in.f<4>(2);
         auto mask = in.b<4>(3);
         return join({flat(mod::attention<AD>(q, k, v, mask)), flat(mod::attention<AD>(q, k, v, mask, 0.7))});
       }});
  // x [2, 3, 6] with gamma and beta [6], then neither (epsilon 1e-3).
  cases.push_back({"layer_norm", {"module_layer_norm"}, [](const GradInputs& in) {
                     auto x = in.f<3>(0);
                     std::optional<Tensor<AD, 1>> g = in.f<1>(1), b = in.f<1>(2), none;
                     return join({flat(mod::layer_norm(x, g, b)), flat(mod::layer_norm(x, none, none, 1e-3))});
                   }});
  // x [3, 5] with gamma [5], then without (epsilon 1e-2).
  cases.push_back({"rms_norm", {"module_rms_norm"}, [](const GradInputs& in) {
                     auto x = in.f<2>(0);
                     std::optional<Tensor<AD, 1>> g = in.f<1>(1), none;
                     return join({flat(mod::rms_norm(x, g)), flat(mod::rms_norm(x, none, 1e-2))});
                   }});
  // The causal flag: 3 queries over 5 keys, then 5 over 3 (scale 0.4).
  cases.push_back({"attention_causal", {"module_attention", "module_attention_with_stats"}, [](const GradInputs& in) {
                     auto q = in.f<4>(0), k = in.f<4>(1), v = in.f<4>(2);
                     return join({flat(mod::attention<AD>(q, k, v, std::nullopt, std::nullopt, true)),
                                  flat(mod::attention<AD>(k, q, q, std::nullopt, 0.4, true))});
                   }});
  // x [3, 5], weight [5, 4], bias [4]: with relu, without bias, with bias alone.
  cases.push_back(
      {"linear", {"module_linear"}, [](const GradInputs& in) {
         auto x = in.f<2>(0), w = in.f<2>(1);
         std::optional<Tensor<AD, 1>> b = in.f<1>(2);
         return join({flat(mod::linear(x, w, b, true)), flat(mod::linear(x, w)), flat(mod::linear(x, w, b))});
       }});
  // logits [4, 6], class targets [4].
  cases.push_back({"cross_entropy", {"module_cross_entropy"}, [](const GradInputs& in) {
                     return flat(mod::cross_entropy(in.f<2>(0), in.i<1>(1)));
                   }});
}
}  // namespace

void add_module_grad_cases(std::vector<GradCase>& cases) {
  add_conv_cases(cases);
  add_conv_transpose_cases(cases);
  add_pool_cases(cases);
  add_interpolate_cases(cases);
  add_unfold_attention_norm_cases(cases);
}

}  // namespace scorch::gradcheck
