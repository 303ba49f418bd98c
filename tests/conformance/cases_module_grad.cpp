// Conformance cases: gradients of the module ops (the *_backward functions), against autograd.
#include "harness.h"
#include "module_aliases.h"

namespace scorch::conformance {
namespace {
using namespace module_aliases;

// Inputs x [.., h, w] and the output gradient g; the gradient of each interpolation mode.
template <class B> std::vector<TensorData> interpolate_grads(const Inputs<B>& in) {
  auto x = F<4>(in, 0), g = F<4>(in, 1);
  S2 size{g.shape()[2], g.shape()[3]};
  auto grad = [&](InterpolateMode mode, bool align_corners) {
    return mod::interpolate_backward(x, g, size, mod::InterpolateOptions{mode, align_corners});
  };
  return outs(grad(InterpolateMode::Nearest, false), grad(InterpolateMode::Bilinear, false),
              grad(InterpolateMode::Bilinear, true), grad(InterpolateMode::Bicubic, false),
              grad(InterpolateMode::Bicubic, true));
}
}  // namespace

template <class B> void add_module_grad_cases(CaseList<B>& list) {
  // ---- convolution: inputs x, weight, output gradient; outputs dx, dweight[, dbias]
  list.add("mod_conv2d_backward", {"module_conv_backward"}, [](const Inputs<B>& in) {
    auto r = mod::conv_backward(F<4>(in, 0), F<4>(in, 1), true, F<4>(in, 2), C2{{2, 1}, {1, 1}, {1, 2}, 2});
    return outs(r.x, r.weight, *r.bias);
  });
  list.add("mod_conv1d_backward_f64", {"module_conv_backward"}, [](const Inputs<B>& in) {
    auto r = mod::conv_backward(F<3>(in, 0), F<3>(in, 1), false, F<3>(in, 2), C1{{3}, {0}, {2}});
    return outs(r.x, r.weight);
  });
  list.add("mod_conv3d_backward", {"module_conv_backward"}, [](const Inputs<B>& in) {
    auto r = mod::conv_backward(F<5>(in, 0), F<5>(in, 1), true, F<5>(in, 2), C3{{1, 2, 1}, {1, 0, 1}});
    return outs(r.x, r.weight, *r.bias);
  });
  list.add("mod_conv_transpose2d_backward", {"module_conv_transpose_backward"}, [](const Inputs<B>& in) {
    auto r = mod::conv_transpose_backward(F<4>(in, 0), F<4>(in, 1), true, F<4>(in, 2),
                                          T2{{2, 2}, {1, 0}, {1, 1}, {1, 1}, 2});
    return outs(r.x, r.weight, *r.bias);
  });
  list.add("mod_conv_transpose1d_backward", {"module_conv_transpose_backward"}, [](const Inputs<B>& in) {
    auto r = mod::conv_transpose_backward(F<3>(in, 0), F<3>(in, 1), false, F<3>(in, 2), T1{{2}, {1}, {1}, {2}});
    return outs(r.x, r.weight);
  });

  // ---- pooling: (kernel, stride, padding, count_include_pad, ceil_mode)
  list.add("mod_avg_pool_backward", {"module_avg_pool_backward"}, [](const Inputs<B>& in) {
    auto x = F<4>(in, 0), g = F<4>(in, 1), gc = F<4>(in, 2);
    return outs(mod::avg_pool_backward(x, g, S2{3, 3}, S2{2, 2}, S2{1, 1}, true, false),
                mod::avg_pool_backward(x, g, S2{3, 3}, S2{2, 2}, S2{1, 1}, false, false),
                mod::avg_pool_backward(x, gc, S2{2, 3}, S2{2, 2}, S2{0, 1}, false, true),
                mod::avg_pool_backward(x, gc, S2{2, 3}, S2{2, 2}, S2{0, 1}, true, true));
  });
  list.add("mod_avg_pool1d_backward", {"module_avg_pool_backward"}, [](const Inputs<B>& in) {
    return outs(mod::avg_pool_backward(F<3>(in, 0), F<3>(in, 1), S1{4}, S1{3}, S1{1}, false, true));
  });
  list.add("mod_max_pool_backward", {"module_max_pool_with_indices", "module_max_pool_backward"},
           [](const Inputs<B>& in) {
             auto x = F<4>(in, 0);
             auto x1 = F<3>(in, 2);
             auto idx = mod::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}).second;
             auto idx1 = mod::max_pool1d_with_indices(x1, 3, 1, 0).second;
             return outs(mod::max_pool_backward(x, F<4>(in, 1), idx), mod::max_pool_backward(x1, F<3>(in, 3), idx1));
           });
  list.add("mod_adaptive_avg_pool_backward", {"module_adaptive_avg_pool_backward"}, [](const Inputs<B>& in) {
    return outs(mod::adaptive_avg_pool_backward(F<4>(in, 0), F<4>(in, 1)),
                mod::adaptive_avg_pool_backward(F<3>(in, 2), F<3>(in, 3)));
  });
  list.add("mod_adaptive_max_pool_backward", {"module_adaptive_max_pool_with_indices", "module_max_pool_backward"},
           [](const Inputs<B>& in) {
             auto x = F<4>(in, 0);
             auto idx = mod::adaptive_max_pool_with_indices(x, S2{3, 4}).second;
             return outs(mod::max_pool_backward(x, F<4>(in, 1), idx));
           });

  // ---- interpolation: nearest, bilinear, bilinear aligned, bicubic, bicubic aligned
  list.add("mod_interpolate_backward_up", {"module_interpolate_backward"},
           [](const Inputs<B>& in) { return interpolate_grads(in); });
  list.add("mod_interpolate_backward_down", {"module_interpolate_backward"},
           [](const Inputs<B>& in) { return interpolate_grads(in); });
}

SCORCH_CONFORMANCE_INSTANTIATE(add_module_grad_cases);

// The optimizer updates and attention's dropout.
namespace {
template <class B> void add_update_cases(CaseList<B>& list) {
  // The multi-tensor steps, against torch.optim over a [4, 6] and a [5] parameter ([3, 4] and [7] for SGD).
  list.add("mod_adam_update_many", {"module_adam_update_many"}, [](const Inputs<B>& in) {
    using P = std::vector<typename B::FloatTensor>;
    auto at = [&](size_t i) { return i < 4 ? F<2>(in, i).primitive() : F<1>(in, i).primitive(); };
    auto r = ModuleOpsOf<B>::adam_update_many(P{at(0), at(4)}, P{at(1), at(5)}, P{at(2), at(6)}, P{at(3), at(7)},
                                              {.lr = 1e-2, .weight_decay = 0.1, .decoupled = true, .step = 3});
    return outs(Tensor<B, 2>(r[0].param), Tensor<B, 2>(r[0].moment_1), Tensor<B, 2>(r[0].moment_2),
                Tensor<B, 1>(r[1].param), Tensor<B, 1>(r[1].moment_1), Tensor<B, 1>(r[1].moment_2));
  });
  list.add("mod_sgd_update_many", {"module_sgd_update_many"}, [](const Inputs<B>& in) {
    using P = std::vector<typename B::FloatTensor>;
    auto at = [&](size_t i) { return i < 3 ? F<2>(in, i).primitive() : F<1>(in, i).primitive(); };
    auto r = ModuleOpsOf<B>::sgd_update_many(
        P{at(0), at(3)}, P{at(1), at(4)}, P{at(2), at(5)},
        {.lr = 0.1, .weight_decay = 1e-3, .momentum = 0.9, .dampening = 0.1, .with_momentum = true});
    auto n = ModuleOpsOf<B>::sgd_update_many(P{at(0), at(3)}, P{at(1), at(4)}, P{},
                                             {.lr = 0.05, .momentum = 0.8, .with_momentum = true, .nesterov = true});
    auto plain = ModuleOpsOf<B>::sgd_update_many(P{at(0), at(3)}, P{at(1), at(4)}, P{}, {.lr = 0.2});
    return outs(Tensor<B, 2>(r[0].param), Tensor<B, 2>(*r[0].velocity), Tensor<B, 1>(r[1].param),
                Tensor<B, 1>(*r[1].velocity), Tensor<B, 2>(n[0].param), Tensor<B, 2>(*n[0].velocity),
                Tensor<B, 1>(n[1].param), Tensor<B, 2>(plain[0].param), Tensor<B, 1>(plain[1].param));
  });
  // A drawn seed (float_random_seed) with a probability that drops nothing: plain attention.
  list.add("mod_attention_drawn_seed", {"float_random_seed", "module_attention"}, [](const Inputs<B>& in) {
    return outs(mod::attention<B>(F<4>(in, 0), F<4>(in, 1), F<4>(in, 2), std::nullopt, std::nullopt, false, 1e-12));
  });
  // Attention with dropout: the mask is DropoutMask's, written again in the fixture script.
  list.add("mod_attention_dropout", {"module_attention_with_stats", "module_attention_backward"},
           [](const Inputs<B>& in) {
             auto q = F<4>(in, 0), k = F<4>(in, 1), v = F<4>(in, 2), g = F<4>(in, 4);
             auto m = Bo<4>(in, 3);
             AttentionDropout first{0.3, 1234}, second{0.6, 99};
             auto [out, lse] = mod::attention_with_stats<B>(q, k, v, m, std::nullopt, false, first);
             auto r = mod::attention_backward<B>(q, k, v, out, lse, g, m, std::nullopt, false, first);
             auto [out2, lse2] = mod::attention_with_stats<B>(q, k, v, m, std::nullopt, true, second);
             auto r2 = mod::attention_backward<B>(q, k, v, out2, lse2, g, m, std::nullopt, true, second);
             return outs(out, lse.cast(q.dtype()), r.q, r.k, r.v, out2, r2.q, r2.k, r2.v);
           });
}
}  // namespace

// Gradients of the fused ops: attention (from its statistics), layer norm and RMS norm.
template <class B> void add_fused_grad_cases(CaseList<B>& list) {
  // ---- attention: q, k, v, mask, output gradient; outputs dq, dk, dv (masked, then unmasked with scale 0.3)
  list.add("mod_attention_backward", {"module_attention_backward"}, [](const Inputs<B>& in) {
    auto q = F<4>(in, 0), k = F<4>(in, 1), v = F<4>(in, 2), g = F<4>(in, 4);
    auto mask = Bo<4>(in, 3);
    auto [out, lse] = mod::attention_with_stats<B>(q, k, v, mask);
    auto r = mod::attention_backward<B>(q, k, v, out, lse, g, mask);
    auto [out1, lse1] = mod::attention_with_stats<B>(q, k, v, std::nullopt, 0.3);
    auto r1 = mod::attention_backward<B>(q, k, v, out1, lse1, g, std::nullopt, 0.3);
    return outs(r.q, r.k, r.v, r1.q, r1.k, r1.v);
  });

  // ---- normalization: x, gamma, output gradient; outputs dx, dgamma[, dbeta], then dx[, dbeta] without gamma
  list.add("mod_layer_norm_backward", {"module_layer_norm_backward"}, [](const Inputs<B>& in) {
    auto x = F<3>(in, 0), g = F<3>(in, 2);
    std::optional<Tensor<B, 1>> gamma = F<1>(in, 1);
    auto r = mod::layer_norm_backward(x, gamma, true, g);
    auto r1 = mod::layer_norm_backward(x, std::optional<Tensor<B, 1>>{}, true, g, 1e-3);
    return outs(r.x, *r.gamma, *r.beta, r1.x, *r1.beta);
  });
  list.add("mod_rms_norm_backward", {"module_rms_norm_backward"}, [](const Inputs<B>& in) {
    auto x = F<2>(in, 0), g = F<2>(in, 2);
    std::optional<Tensor<B, 1>> gamma = F<1>(in, 1);
    auto r = mod::rms_norm_backward(x, gamma, g);
    auto r1 = mod::rms_norm_backward(x, std::optional<Tensor<B, 1>>{}, g, 1e-2);
    return outs(r.x, *r.gamma, r1.x);
  });
  list.add("mod_adam_update", {"module_adam_update"}, [](const Inputs<B>& in) {
    auto p = F<2>(in, 0), g = F<2>(in, 1), m = F<2>(in, 2), v = F<2>(in, 3);
    auto w = mod::adam_update(p, g, m, v, {.lr = 1e-2, .weight_decay = 0.1, .decoupled = true, .step = 2});
    auto a = mod::adam_update(
        p, g, m, v, {.lr = 2e-2, .beta_1 = 0.8, .beta_2 = 0.99, .epsilon = 1e-6, .weight_decay = 0.05, .step = 3});
    auto zeros = p.zeros_like();
    auto first = mod::adam_update(p, g, zeros, zeros, {.lr = 1e-3});
    return outs(w.param, w.moment_1, w.moment_2, a.param, a.moment_1, a.moment_2, first.param);
  });
  add_update_cases(list);
}

SCORCH_CONFORMANCE_INSTANTIATE(add_fused_grad_cases);

}  // namespace scorch::conformance
