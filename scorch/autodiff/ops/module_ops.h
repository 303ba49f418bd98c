#pragma once
// Autodiff<B> module ops: convolution, pooling, interpolation, unfold/fold, attention and the norms. Their
// gradients use the inner backend's *_backward helpers; the helpers themselves pass through
// untracked (no second-order gradients).
#include <optional>
#include <utility>

#include "scorch/autodiff/ops/common.h"
#include "scorch/backend/module_options.h"

namespace scorch::autodiff {

template <class B> struct ModuleOps : OpsBase<B> {
  SCORCH_AUTODIFF_OPS_NAMES(OpsBase<B>);
  using M = ModuleOpsOf<B>;

  static T conv(T x, T w, std::optional<T> bias, const ConvSpec& spec);
  static T conv_transpose(T x, T w, std::optional<T> bias, const ConvSpec& spec);
  static ConvGradients<T> conv_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec);
  static ConvGradients<T> conv_transpose_backward(T x, T w, bool has_bias, T grad, const ConvSpec& spec);
  static T avg_pool(T x, const PoolSpec& spec);
  static T avg_pool_backward(T x, T grad, const PoolSpec& spec);
  static std::pair<T, IntP> max_pool_with_indices(T x, const PoolSpec& spec);
  static T max_pool_backward(T x, T grad, IntP indices);
  static T adaptive_avg_pool(T x, const SpatialDims& output_size);
  static T adaptive_avg_pool_backward(T x, T grad);
  static std::pair<T, IntP> adaptive_max_pool_with_indices(T x, const SpatialDims& output_size);
  static T interpolate(T x, const InterpolateSpec& spec);
  static T interpolate_backward(T x, T grad, const InterpolateSpec& spec);
  static T unfold(T x, const PoolSpec& spec);
  static T fold(T x, const SpatialDims& output_size, const PoolSpec& spec);
  static T attention(T q, T k, T v, const std::optional<BoolP>& mask, double scale, bool causal,
                     const AttentionDropout& dropout);
  static std::pair<T, T> attention_with_stats(T q, T k, T v, const std::optional<BoolP>& mask, double scale,
                                              bool causal, const AttentionDropout& dropout);
  static AttentionGradients<T> attention_backward(T q, T k, T v, const std::optional<BoolP>& mask, double scale,
                                                  bool causal, const AttentionDropout& dropout, T out, T logsumexp,
                                                  T grad);
  static std::pair<T, T> cross_entropy(T logits, IntP targets);
  static T cross_entropy_backward(T logits, IntP targets, T logsumexp, T grad);
  static T linear(T x, T weight, const std::optional<T>& bias, bool relu);
  static ConvGradients<T> linear_backward(T x, T weight, bool has_bias, bool relu, T output, T grad);
  static T layer_norm(T x, const std::optional<T>& gamma, const std::optional<T>& beta, double epsilon);
  static NormGradients<T> layer_norm_backward(T x, const std::optional<T>& gamma, bool has_beta, T grad,
                                              double epsilon);
  static T rms_norm(T x, const std::optional<T>& gamma, double epsilon);
  static NormGradients<T> rms_norm_backward(T x, const std::optional<T>& gamma, T grad, double epsilon);

 private:
  /// conv or conv_transpose, recorded with the matching backward helper.
  template <bool Transposed> static T convolution(T x, T w, std::optional<T> bias, const ConvSpec& spec);
  /// Max pooling (fixed or adaptive) whose gradient routes through the indices.
  static std::pair<T, IntP> indexed_pool(const char* name, T x, std::pair<P, IntP> result);
  /// A helper's gradients wrapped as untracked tensors.
  static ConvGradients<T> wrap_grads(ConvGradients<P> g);
  static NormGradients<T> wrap_grads(NormGradients<P> g);
  /// An optional tensor's primitive.
  static std::optional<P> primitive_of(const std::optional<T>& t);
};

}  // namespace scorch::autodiff
