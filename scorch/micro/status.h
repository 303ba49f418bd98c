#pragma once
// Errors of the micro runtime: a Status the caller checks. raise() is the one place the two error policies differ:
// hosted builds throw the Status as a scorch::Error, freestanding builds hand it back (config.h).
#include <cstddef>
#include <cstdint>

#include "scorch/micro/config.h"
#include "scorch/micro/shape.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// What went wrong; hosted builds throw the matching scorch::Error subclass.
enum class Code : uint8_t { ok, shape, dtype, value, missing, arena, capacity };

/// "ok", "shape", "dtype", "value", "missing", "arena", "capacity".
const char* code_name(Code code);

/// A result: ok, or a code and a message that starts with the op ("micro::Linear: ...").
struct Status {
  static constexpr size_t kMessageBytes = 160;
  Code code = Code::ok;
  char message[kMessageBytes] = {};
  bool ok() const { return code == Code::ok; }
};

/// Builds an error Status piece by piece; text past the buffer is cut.
class Message {
 public:
  Message(Code code, const char* op);
  Message& operator<<(const char* text);
  Message& operator<<(int64_t value);
  Message& operator<<(const Shape& shape);
  /// The finished status.
  const Status& status() const { return status_; }
  operator const Status&() const { return status_; }

 private:
  void put(char c);
  Status status_;
  size_t length_ = 0;
};

/// The error policy: throws s as a scorch::Error (hosted), or returns it (freestanding). Never called with ok.
Status raise(const Status& s);
/// raise(message.status()).
inline Status raise(const Message& message) { return raise(message.status()); }

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro

/// Returns the status of expr from the enclosing function unless it is ok.
#define SCORCH_MICRO_TRY(expr)                                   \
  do {                                                           \
    ::scorch::micro::Status scorch_micro_status_ = (expr);       \
    if (!scorch_micro_status_.ok()) return scorch_micro_status_; \
  } while (0)
