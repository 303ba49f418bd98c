#pragma once
// Shared names and small gradient helpers of the Autodiff<B> op groups.
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include "scorch/autodiff/graph.h"
#include "scorch/gen/autodiff_decls.h"
#include "scorch/gen/kind_ops.h"
#include "scorch/core/scalar.h"

namespace scorch::autodiff {

/// Brings OpsBase's names into an op group (dependent base names are not found otherwise).
#define SCORCH_AUTODIFF_OPS_NAMES(Base) \
  using T = AutodiffTensor<B>;          \
  using P = typename B::FloatTensor;    \
  using IntP = typename B::IntTensor;   \
  using BoolP = typename B::BoolTensor; \
  using I = KindOps<B, Float>;          \
  using R = Graph<B>;                   \
  using Base::zeros;                    \
  using Base::square;                   \
  using Base::rsub;                     \
  using Base::expand_to;                \
  using Base::scatter_to

/// The aliases every op group uses: T (autodiff tensor), P (inner primitive), I (inner float
/// ops), IntP / BoolP (inner int and bool primitives), R (the recorder).
template <class B> struct OpsBase {
  using T = AutodiffTensor<B>;
  using P = typename B::FloatTensor;
  using IntP = typename B::IntTensor;
  using BoolP = typename B::BoolTensor;
  using I = KindOps<B, Float>;
  using R = Graph<B>;

  /// Zeros of shape, on p's device and dtype.
  static P zeros(const Shape& shape, const P& like) { return I::full(shape, Scalar(0), like.device(), like.dtype()); }
  /// x * x.
  static P square(const P& x) { return I::mul(x, x); }
  /// s - x.
  static P rsub(double s, P x) { return I::add_scalar(I::neg(std::move(x)), Scalar(s)); }
  /// g broadcast back to shape after a reduction along dims (g keeps them with size 1).
  static P expand_to(P g, const Shape& shape) {
    Shape lifted = g.shape();
    if (lifted.rank() != shape.rank()) {
      lifted = shape;
      for (size_t d = 0; d < lifted.rank(); ++d) lifted[d] = 1;
      g = I::reshape(std::move(g), lifted);
    }
    return I::expand(std::move(g), shape);
  }
  /// Scatters g into zeros of shape at indices along dim (the gradient of a gather-like op).
  static P scatter_to(size_t dim, const Shape& shape, const IntP& indices, const P& g) {
    return I::scatter_add(dim, zeros(shape, g), indices, g);
  }
  /// Wraps an inner primitive as an untracked autodiff tensor.
  static T wrap(P p) { return T(std::move(p)); }
};

}  // namespace scorch::autodiff
