#pragma once
// AutodiffTensor<B>: the float primitive of Autodiff<B>, an inner primitive plus the graph node
// that produced it (null when nothing upstream requires grad).
#include <memory>

#include "scorch/autodiff/node.h"
#include "scorch/core/shape.h"

namespace scorch::autodiff {

/// An inner float primitive and its node; copying shares both.
template <class B> struct AutodiffTensor {
  using Inner = typename B::FloatTensor;
  Inner primitive;
  NodeRef<Inner> node;

  AutodiffTensor() = default;
  /// An untracked tensor.
  explicit AutodiffTensor(Inner p) : primitive(std::move(p)) {}
  AutodiffTensor(Inner p, NodeRef<Inner> n) : primitive(std::move(p)), node(std::move(n)) {}

  decltype(auto) shape() const { return primitive.shape(); }
  auto dtype() const { return primitive.dtype(); }
  auto device() const { return primitive.device(); }
  /// True when a gradient can flow back through this tensor.
  bool tracked() const { return node != nullptr; }
};

}  // namespace scorch::autodiff
