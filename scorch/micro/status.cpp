// Status messages and the error policy (status.h).
#include "scorch/micro/status.h"

#if SCORCH_MICRO_THROWS
#include <string>

#include "scorch/core/error.h"
#endif

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

const char* code_name(Code code) {
  switch (code) {
    case Code::ok: return "ok";
    case Code::shape: return "shape";
    case Code::dtype: return "dtype";
    case Code::value: return "value";
    case Code::missing: return "missing";
    case Code::arena: return "arena";
    case Code::capacity: return "capacity";
  }
  return "unknown";
}

Message::Message(Code code, const char* op) {
  status_.code = code;
  *this << op << ": ";
}

void Message::put(char c) {
  if (length_ + 1 < Status::kMessageBytes) status_.message[length_++] = c;
}

Message& Message::operator<<(const char* text) {
  while (text && *text) put(*text++);
  return *this;
}

Message& Message::operator<<(int64_t value) {
  char digits[24];
  size_t n = 0;
  uint64_t v = value < 0 ? uint64_t(0) - uint64_t(value) : uint64_t(value);
  do digits[n++] = char('0' + v % 10);
  while (v /= 10);
  if (value < 0) put('-');
  while (n) put(digits[--n]);
  return *this;
}

Message& Message::operator<<(const Shape& shape) {
  if (!shape.valid()) return *this << "[rank > " << int64_t(Shape::kMaxRank) << "]";
  put('[');
  for (uint32_t i = 0; i < shape.rank(); ++i) *this << (i ? ", " : "") << int64_t(shape[i]);
  put(']');
  return *this;
}

#if SCORCH_MICRO_THROWS
Status raise(const Status& s) {
  // The message reads "op: text"; scorch::Error writes "[op] text".
  std::string text = s.message;
  size_t colon = text.find(": ");
  std::string op = colon == std::string::npos ? "micro" : text.substr(0, colon);
  std::string rest = colon == std::string::npos ? text : text.substr(colon + 2);
  switch (s.code) {
    case Code::shape: throw ShapeError(op, rest);
    case Code::dtype: throw DTypeError(op, rest);
    case Code::missing: throw FormatError(op, rest);
    default: throw ValueError(op, rest);
  }
}
#else
Status raise(const Status& s) { return s; }
#endif

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
