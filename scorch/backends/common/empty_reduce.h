#pragma once
// What a reduction over an empty dim gives, the same on every kernel backend and as PyTorch: sum 0,
// prod 1, a float mean NaN (0 / 0); max, min, argmax and argmin have no identity and throw, and so
// does an integer mean (a division by zero).
#include <limits>
#include <string>

#include "scorch/core/dtype.h"
#include "scorch/core/error.h"
#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"

namespace scorch::backends {

/// The reductions, by what they give over an empty dim.
enum class EmptyFold { Sum, Prod, Mean, Extreme };

/// The value of every output of op over shape's empty dim; throws ShapeError (max, min, arg...) or
/// ValueError (an integer mean) where PyTorch raises.
inline Scalar empty_fold_value(const char* op, EmptyFold fold, DType dtype, const Shape& shape, size_t dim) {
  std::string where = "dim " + std::to_string(dim) + " of " + shape.to_string() + " is empty";
  switch (fold) {
    case EmptyFold::Sum: return Scalar(0);
    case EmptyFold::Prod: return Scalar(1);
    case EmptyFold::Mean:
      if (!is_float(dtype))
        throw ValueError(op, where + ": the mean of no " + std::string(dtype_name(dtype)) + " values divides by zero");
      return Scalar(std::numeric_limits<double>::quiet_NaN());
    case EmptyFold::Extreme: break;
  }
  throw ShapeError(op, where + ": the reduction has no identity (as in PyTorch)");
}

}  // namespace scorch::backends
