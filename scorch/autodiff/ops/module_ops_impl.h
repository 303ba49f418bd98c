#pragma once
// Definitions of ModuleOps<B>; included by the translation unit that instantiates Autodiff<B>.
#include "scorch/autodiff/autodiff.h"
#include "scorch/autodiff/ops/module_ops.h"

namespace scorch::autodiff {

template <class B> template <bool Transposed>
AutodiffTensor<B> ModuleOps<B>::convolution(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  bool has_bias = bias.has_value();
  auto fwd = [spec, has_bias](auto in) {
    std::optional<P> b = has_bias ? std::optional<P>(std::move(in[2])) : std::nullopt;
    if constexpr (Transposed) return M::conv_transpose(std::move(in[0]), std::move(in[1]), std::move(b), spec);
    else return M::conv(std::move(in[0]), std::move(in[1]), std::move(b), spec);
  };
  auto bwd = [spec, has_bias](auto& c) {
    ConvGradients<P> g = Transposed ? M::conv_transpose_backward(c.input(0), c.input(1), has_bias, c.grad(), spec)
                                    : M::conv_backward(c.input(0), c.input(1), has_bias, c.grad(), spec);
    c.to(0, [&] { return std::move(g.x); });
    c.to(1, [&] { return std::move(g.weight); });
    if (has_bias) c.to(2, [&] { return std::move(*g.bias); });
  };
  uint32_t both = in(0) | in(1);
  std::array<T, 3> inputs{std::move(x), std::move(w), bias ? std::move(*bias) : T()};
  return R::op(Transposed ? "conv_transpose" : "conv", Bound::Compute, std::move(inputs), {both, both, both}, fwd, bwd);
}
template <class B> AutodiffTensor<B> ModuleOps<B>::conv(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  return convolution<false>(std::move(x), std::move(w), std::move(bias), spec);
}
template <class B>
AutodiffTensor<B> ModuleOps<B>::conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec) {
  return convolution<true>(std::move(x), std::move(w), std::move(bias), spec);
}
template <class B> ConvGradients<AutodiffTensor<B>> ModuleOps<B>::wrap_grads(ConvGradients<P> g) {
  std::optional<T> bias;
  if (g.bias) bias = T(std::move(*g.bias));
  return {T(std::move(g.x)), T(std::move(g.weight)), std::move(bias)};
}
template <class B>
ConvGradients<AutodiffTensor<B>> ModuleOps<B>::conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec) {
  return wrap_grads(
      M::conv_backward(std::move(x.primitive), std::move(w.primitive), has_bias, std::move(grad.primitive), spec));
}
template <class B> ConvGradients<AutodiffTensor<B>> ModuleOps<B>::conv_transpose_backward(T x, T w, bool has_bias,
                                                                                          T grad,
                                                                                          const ConvSpec& spec) {
  return wrap_grads(M::conv_transpose_backward(std::move(x.primitive), std::move(w.primitive), has_bias,
                                               std::move(grad.primitive), spec));
}

template <class B> AutodiffTensor<B> ModuleOps<B>::avg_pool(T x, const PoolSpec& spec) {
  return R::unary(
      "avg_pool", Bound::Compute, std::move(x), in(0), [spec](auto in) { return M::avg_pool(std::move(in[0]), spec); },
      [spec](auto& c) { c.to(0, [&] { return M::avg_pool_backward(c.input(0), c.grad(), spec); }); });
}
template <class B> AutodiffTensor<B> ModuleOps<B>::avg_pool_backward(T x, T grad, const PoolSpec& spec) {
  return T(M::avg_pool_backward(std::move(x.primitive), std::move(grad.primitive), spec));
}
template <class B>
std::pair<AutodiffTensor<B>, typename B::IntTensor> ModuleOps<B>::indexed_pool(const char* name, T x,
                                                                               std::pair<P, IntP> result) {
  auto& [values, indices] = result;
  T out = R::computed(name, std::array<T, 1>{std::move(x)}, {in(0)}, std::move(values), [indices = indices](auto& c) {
    c.to(0, [&] { return M::max_pool_backward(c.input(0), c.grad(), indices); });
  });
  return {std::move(out), std::move(indices)};
}
template <class B>
std::pair<AutodiffTensor<B>, typename B::IntTensor> ModuleOps<B>::max_pool_with_indices(T x, const PoolSpec& spec) {
  auto result = M::max_pool_with_indices(x.primitive, spec);
  return indexed_pool("max_pool", std::move(x), std::move(result));
}
template <class B> AutodiffTensor<B> ModuleOps<B>::max_pool_backward(T x, T grad, IntP indices) {
  return T(M::max_pool_backward(std::move(x.primitive), std::move(grad.primitive), std::move(indices)));
}
template <class B> AutodiffTensor<B> ModuleOps<B>::adaptive_avg_pool(T x, const SpatialDims& output_size) {
  return R::unary(
      "adaptive_avg_pool", Bound::Compute, std::move(x), in(0),
      [output_size](auto in) { return M::adaptive_avg_pool(std::move(in[0]), output_size); },
      [](auto& c) { c.to(0, [&] { return M::adaptive_avg_pool_backward(c.input(0), c.grad()); }); });
}
template <class B> AutodiffTensor<B> ModuleOps<B>::adaptive_avg_pool_backward(T x, T grad) {
  return T(M::adaptive_avg_pool_backward(std::move(x.primitive), std::move(grad.primitive)));
}
template <class B> std::pair<AutodiffTensor<B>, typename B::IntTensor> ModuleOps<B>::adaptive_max_pool_with_indices(
    T x, const SpatialDims& output_size) {
  auto result = M::adaptive_max_pool_with_indices(x.primitive, output_size);
  return indexed_pool("adaptive_max_pool", std::move(x), std::move(result));
}
template <class B> AutodiffTensor<B> ModuleOps<B>::interpolate(T x, const InterpolateSpec& spec) {
  return R::unary(
      "interpolate", Bound::Compute, std::move(x), in(0),
      [spec](auto in) { return M::interpolate(std::move(in[0]), spec); },
      [spec](auto& c) { c.to(0, [&] { return M::interpolate_backward(c.input(0), c.grad(), spec); }); });
}
template <class B> AutodiffTensor<B> ModuleOps<B>::interpolate_backward(T x, T grad, const InterpolateSpec& spec) {
  return T(M::interpolate_backward(std::move(x.primitive), std::move(grad.primitive), spec));
}
// unfold and fold are adjoint: each one's gradient is the other.
template <class B> AutodiffTensor<B> ModuleOps<B>::unfold(T x, const PoolSpec& spec) {
  return R::unary(
      "unfold4d", Bound::Memory, std::move(x), 0, [spec](auto in) { return M::unfold(std::move(in[0]), spec); },
      [spec](auto& c) {
        c.to(0, [&] {
          const Shape& s = c.shape(0);
          return M::fold(c.grad(), SpatialDims(s.begin() + 2, s.end()), spec);
        });
      });
}
template <class B> AutodiffTensor<B> ModuleOps<B>::fold(T x, const SpatialDims& output_size, const PoolSpec& spec) {
  return R::unary(
      "fold4d", Bound::Memory, std::move(x), 0,
      [output_size, spec](auto in) { return M::fold(std::move(in[0]), output_size, spec); },
      [spec](auto& c) { c.to(0, [&] { return M::unfold(c.grad(), spec); }); });
}
// attention and attention_with_stats: one node whose backward is the inner backend's attention_backward,
// from the saved inputs, output and log-sum-exp.
template <class B>
std::pair<AutodiffTensor<B>, AutodiffTensor<B>> ModuleOps<B>::attention_with_stats(T q, T k, T v,
                                                                                   const std::optional<BoolP>& mask,
                                                                                   double scale, bool causal,
                                                                                   const AttentionDropout& dropout) {
  auto [out, lse] = M::attention_with_stats(q.primitive, k.primitive, v.primitive, mask, scale, causal, dropout);
  auto bwd = [mask, scale, causal, dropout, lse = lse](auto& c) {
    auto g = M::attention_backward(c.input(0), c.input(1), c.input(2), mask, scale, causal, dropout, c.output(), lse,
                                   c.grad());
    c.to(0, [&] { return std::move(g.q); });
    c.to(1, [&] { return std::move(g.k); });
    c.to(2, [&] { return std::move(g.v); });
  };
  uint32_t all = in(0) | in(1) | in(2) | kOut;
  T result = R::computed("attention", std::array<T, 3>{std::move(q), std::move(k), std::move(v)}, {all, all, all},
                         std::move(out), std::move(bwd));
  return {std::move(result), T(std::move(lse))};
}
template <class B>
AutodiffTensor<B> ModuleOps<B>::attention(T q, T k, T v, const std::optional<BoolP>& mask, double scale,
                                          bool causal, const AttentionDropout& dropout) {
  if (!q.tracked() && !k.tracked() && !v.tracked())
    return T(M::attention(q.primitive, k.primitive, v.primitive, mask, scale, causal, dropout));
  return attention_with_stats(std::move(q), std::move(k), std::move(v), mask, scale, causal, dropout).first;
}
template <class B>
AttentionGradients<AutodiffTensor<B>> ModuleOps<B>::attention_backward(T q, T k, T v, const std::optional<BoolP>& mask,
                                                                       double scale, bool causal,
                                                                       const AttentionDropout& dropout, T out,
                                                                       T logsumexp, T grad) {
  auto g = M::attention_backward(std::move(q.primitive), std::move(k.primitive), std::move(v.primitive), mask, scale,
                                 causal, dropout, std::move(out.primitive), std::move(logsumexp.primitive),
                                 std::move(grad.primitive));
  return {T(std::move(g.q)), T(std::move(g.k)), T(std::move(g.v))};
}

// cross_entropy: one node whose backward is the inner backend's cross_entropy_backward, from the saved logits,
// targets and log-sum-exp.
template <class B>
std::pair<AutodiffTensor<B>, AutodiffTensor<B>> ModuleOps<B>::cross_entropy(T logits, IntP targets) {
  auto [nll, lse] = M::cross_entropy(logits.primitive, targets);
  auto bwd = [targets, lse = lse](auto& c) {
    c.to(0, [&] { return M::cross_entropy_backward(c.input(0), targets, lse, c.grad()); });
  };
  T result = R::computed("cross_entropy", std::array<T, 1>{std::move(logits)}, {in(0)}, std::move(nll), std::move(bwd));
  return {std::move(result), T(std::move(lse))};
}
template <class B>
AutodiffTensor<B> ModuleOps<B>::cross_entropy_backward(T logits, IntP targets, T logsumexp, T grad) {
  return T(M::cross_entropy_backward(std::move(logits.primitive), std::move(targets), std::move(logsumexp.primitive),
                                     std::move(grad.primitive)));
}

template <class B> std::optional<typename B::FloatTensor> ModuleOps<B>::primitive_of(const std::optional<T>& t) {
  return t ? std::optional<P>(t->primitive) : std::nullopt;
}
template <class B> NormGradients<AutodiffTensor<B>> ModuleOps<B>::wrap_grads(NormGradients<P> g) {
  auto wrap = [](std::optional<P>& p) { return p ? std::optional<T>(T(std::move(*p))) : std::nullopt; };
  return {T(std::move(g.x)), wrap(g.gamma), wrap(g.beta)};
}
// linear: one node over x, weight and bias whose backward is the inner backend's linear_backward when x and weight
// both need gradients, and the products apart otherwise (a first layer's input, a frozen weight: nothing unneeded is
// computed or kept).
template <class B>
AutodiffTensor<B> ModuleOps<B>::linear(T x, T weight, const std::optional<T>& bias, bool relu) {
  bool has_bias = bias.has_value();
  auto fwd = [has_bias, relu](auto in) {
    std::optional<P> b = has_bias ? std::optional<P>(std::move(in[2])) : std::nullopt;
    return M::linear(std::move(in[0]), std::move(in[1]), b, relu);
  };
  auto bwd = [has_bias, relu](auto& c) {
    if (c.tracked(0) && c.tracked(1)) {
      P out = relu ? c.output() : c.grad();  // read only for relu (saved only then): grad stands in otherwise
      ConvGradients<P> g = M::linear_backward(c.input(0), c.input(1), has_bias, relu, std::move(out), c.grad());
      c.to(0, [&] { return std::move(g.x); });
      c.to(1, [&] { return std::move(g.weight); });
      if (has_bias) c.to(2, [&] { return std::move(*g.bias); });
      return;
    }
    P g = relu ? I::mask_fill(c.grad(), I::lower_equal_elem(c.output(), Scalar(0)), Scalar(0)) : c.grad();
    c.to(0, [&] { return I::matmul(g, I::swap_dims(c.input(1), 0, 1)); });
    c.to(1, [&] { return I::matmul(I::swap_dims(c.input(0), 0, 1), g); });
    if (has_bias) c.to(2, [&] { return I::reshape(I::sum_dim(g, 0), Shape{g.shape()[1]}); });
  };
  uint32_t out = relu ? kOut : 0;  // relu's gradient passes where the output is above 0
  std::array<T, 3> inputs{std::move(x), std::move(weight), bias ? *bias : T()};
  return R::op("linear", Bound::Compute, std::move(inputs), {in(1) | out, in(0) | out, out}, fwd, bwd);
}
template <class B>
ConvGradients<AutodiffTensor<B>> ModuleOps<B>::linear_backward(T x, T weight, bool has_bias, bool relu, T output,
                                                               T grad) {
  return wrap_grads(M::linear_backward(std::move(x.primitive), std::move(weight.primitive), has_bias, relu,
                                       std::move(output.primitive), std::move(grad.primitive)));
}

// The norms: one memory-bound node (recomputed under checkpointing) over x, gamma and beta, whose
// backward is the inner backend's *_backward.
template <class B> AutodiffTensor<B> ModuleOps<B>::layer_norm(T x, const std::optional<T>& gamma,
                                                              const std::optional<T>& beta, double epsilon) {
  bool has_gamma = gamma.has_value(), has_beta = beta.has_value();
  auto fwd = [has_gamma, has_beta, epsilon](auto in) {
    std::optional<P> g = has_gamma ? std::optional<P>(std::move(in[1])) : std::nullopt;
    std::optional<P> b = has_beta ? std::optional<P>(std::move(in[2])) : std::nullopt;
    return M::layer_norm(std::move(in[0]), g, b, epsilon);
  };
  auto bwd = [has_gamma, has_beta, epsilon](auto& c) {
    std::optional<P> g = has_gamma ? std::optional<P>(c.input(1)) : std::nullopt;
    NormGradients<P> r = M::layer_norm_backward(c.input(0), g, has_beta, c.grad(), epsilon);
    c.to(0, [&] { return std::move(r.x); });
    if (has_gamma) c.to(1, [&] { return std::move(*r.gamma); });
    if (has_beta) c.to(2, [&] { return std::move(*r.beta); });
  };
  uint32_t need = in(0) | (has_gamma ? in(1) : 0);
  std::array<T, 3> inputs{std::move(x), gamma ? *gamma : T(), beta ? *beta : T()};
  return R::op("layer_norm", Bound::Memory, std::move(inputs), {need, need, need}, fwd, bwd);
}
template <class B>
NormGradients<AutodiffTensor<B>> ModuleOps<B>::layer_norm_backward(T x, const std::optional<T>& gamma, bool has_beta,
                                                                   T grad, double epsilon) {
  return wrap_grads(M::layer_norm_backward(std::move(x.primitive), primitive_of(gamma), has_beta,
                                           std::move(grad.primitive), epsilon));
}
template <class B> AutodiffTensor<B> ModuleOps<B>::rms_norm(T x, const std::optional<T>& gamma, double epsilon) {
  bool has_gamma = gamma.has_value();
  auto fwd = [has_gamma, epsilon](auto in) {
    std::optional<P> g = has_gamma ? std::optional<P>(std::move(in[1])) : std::nullopt;
    return M::rms_norm(std::move(in[0]), g, epsilon);
  };
  auto bwd = [has_gamma, epsilon](auto& c) {
    std::optional<P> g = has_gamma ? std::optional<P>(c.input(1)) : std::nullopt;
    NormGradients<P> r = M::rms_norm_backward(c.input(0), g, c.grad(), epsilon);
    c.to(0, [&] { return std::move(r.x); });
    if (has_gamma) c.to(1, [&] { return std::move(*r.gamma); });
  };
  uint32_t need = in(0) | (has_gamma ? in(1) : 0);
  std::array<T, 2> inputs{std::move(x), gamma ? *gamma : T()};
  return R::op("rms_norm", Bound::Memory, std::move(inputs), {need, need}, fwd, bwd);
}
template <class B> NormGradients<AutodiffTensor<B>> ModuleOps<B>::rms_norm_backward(T x, const std::optional<T>& gamma,
                                                                                    T grad, double epsilon) {
  return wrap_grads(
      M::rms_norm_backward(std::move(x.primitive), primitive_of(gamma), std::move(grad.primitive), epsilon));
}

}  // namespace scorch::autodiff
