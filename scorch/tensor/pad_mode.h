#pragma once
// How pad fills the border.
#include "scorch/core/scalar.h"

namespace scorch {

/// Constant(value), Reflect (mirror without repeating the edge) or Edge (repeat the edge value).
struct PadMode {
  enum class Kind { Constant, Reflect, Edge };
  Kind kind = Kind::Constant;
  Scalar value = Scalar(0);
  static PadMode constant(Scalar v) { return {Kind::Constant, v}; }
  static PadMode reflect() { return {Kind::Reflect, Scalar(0)}; }
  static PadMode edge() { return {Kind::Edge, Scalar(0)}; }
};

}  // namespace scorch
