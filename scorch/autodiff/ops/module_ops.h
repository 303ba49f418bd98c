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

  SCORCH_AUTODIFF_MODULE_OPS

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
