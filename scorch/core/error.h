#pragma once
// The error hierarchy: every failure Scorch reports is one of these, with a message that
// starts with the op in brackets, e.g. "[matmul] lhs [2, 3] and rhs [4, 5]: inner dims differ".
#include <stdexcept>
#include <string>

namespace scorch {

/// Base of every Scorch error; what() starts with "[op]".
class Error : public std::runtime_error {
 public:
  Error(const std::string& op, const std::string& message) : std::runtime_error("[" + op + "] " + message) {}
};

/// Shapes, ranks, dims or indices that do not fit the op.
class ShapeError : public Error {
  using Error::Error;
};
/// A dtype the op does not accept, or two operands whose dtypes differ.
class DTypeError : public Error {
  using Error::Error;
};
/// Operands on different devices, or a device the backend does not have.
class DeviceError : public Error {
  using Error::Error;
};
/// A file or stream could not be read or written.
class IoError : public Error {
  using Error::Error;
};
/// Bytes that do not follow the expected format (corrupt or mismatched files).
class FormatError : public Error {
  using Error::Error;
};
/// An argument value outside the op's domain (negative size, zero step, ...).
class ValueError : public Error {
  using Error::Error;
};

}  // namespace scorch
