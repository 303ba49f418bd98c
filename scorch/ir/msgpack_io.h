#pragma once
// The op IR's MessagePack writer and bounds-checked reader (ir_msgpack.cpp's codecs and messages are built on them);
// internal to scorch/ir.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scorch/core/bit_cast.h"
#include "scorch/core/error.h"

namespace scorch::ir::detail {

inline constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();
inline constexpr size_t kNone = static_cast<size_t>(-1);
/// The key that holds a tensor's dtype, as the named MessagePack recorder writes tensors.
inline constexpr std::string_view kTensorKey = "__tensor__";

/// text from untrusted bytes, fit for an error message: at most 40 characters, non-printable ones as '?'.
inline std::string quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out + (text.size() > 40 ? "...'" : "'");
}

/// Appends MessagePack values to a vector, each in its shortest form; errors name the op and field being written.
class Writer {
 public:
  explicit Writer(std::vector<std::byte>& out) : out_(out) {}
  std::string_view op, field;

  [[noreturn]] void fail(const std::string& why) const {
    throw FormatError("encode_op", std::string(op) + "." + std::string(field) + ": " + why);
  }
  void nil() { byte(0xc0); }
  void boolean(bool v) { byte(v ? 0xc3 : 0xc2); }
  void uint(uint64_t v) {
    if (v <= 0x7f) byte(static_cast<uint8_t>(v));
    else if (v <= 0xff) head(0xcc, v, 1);
    else if (v <= 0xffff) head(0xcd, v, 2);
    else if (v <= kMax32) head(0xce, v, 4);
    else head(0xcf, v, 8);
  }
  void sint(int64_t v) {
    auto bits = static_cast<uint64_t>(v);
    if (v >= 0) uint(bits);
    else if (v >= -32) byte(static_cast<uint8_t>(bits));  // negative fixint
    else if (v >= std::numeric_limits<int8_t>::min()) head(0xd0, bits, 1);
    else if (v >= std::numeric_limits<int16_t>::min()) head(0xd1, bits, 2);
    else if (v >= std::numeric_limits<int32_t>::min()) head(0xd2, bits, 4);
    else head(0xd3, bits, 8);
  }
  void float64(double v) { head(0xcb, scorch::bit_cast<uint64_t>(v), 8); }
  void str(std::string_view s) {
    if (s.size() <= 31) byte(static_cast<uint8_t>(0xa0 | s.size()));
    else if (s.size() <= 0xff) head(0xd9, s.size(), 1);
    else if (s.size() <= 0xffff) head(0xda, s.size(), 2);
    else head(0xdb, fits_32(s.size(), "a string of"), 4);
    append(s.data(), s.size());
  }
  void bin(std::span<const std::byte> b) {
    if (b.size() <= 0xff) head(0xc4, b.size(), 1);
    else if (b.size() <= 0xffff) head(0xc5, b.size(), 2);
    else head(0xc6, fits_32(b.size(), "binary data of"), 4);
    append(b.data(), b.size());
  }
  void array(size_t n) {
    if (n <= 15) byte(static_cast<uint8_t>(0x90 | n));
    else if (n <= 0xffff) head(0xdc, n, 2);
    else head(0xdd, fits_32(n, "an array of"), 4);
  }
  void map(size_t n) {
    if (n <= 15) byte(static_cast<uint8_t>(0x80 | n));
    else if (n <= 0xffff) head(0xde, n, 2);
    else head(0xdf, fits_32(n, "a map of"), 4);
  }

 private:
  uint64_t fits_32(size_t n, const char* what) const {
    if (n > kMax32) fail(std::string(what) + " " + std::to_string(n) + " exceeds MessagePack's limit of 2^32 - 1");
    return n;
  }
  void byte(uint8_t b) { out_.push_back(static_cast<std::byte>(b)); }
  void head(uint8_t type, uint64_t v, int bytes) {
    byte(type);
    for (int i = bytes - 1; i >= 0; --i) byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void append(const void* p, size_t n) {
    auto* b = static_cast<const std::byte*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  std::vector<std::byte>& out_;
};

/// The MessagePack type a head byte starts.
enum class Type { Nil, Bool, UInt, Int, Float, Str, Bin, Array, Map, Ext, Invalid };

inline Type type_of(uint8_t h) {
  if (h <= 0x7f || (h >= 0xcc && h <= 0xcf)) return Type::UInt;
  if (h >= 0xe0 || (h >= 0xd0 && h <= 0xd3)) return Type::Int;
  if (h <= 0x8f || h == 0xde || h == 0xdf) return Type::Map;
  if (h <= 0x9f || h == 0xdc || h == 0xdd) return Type::Array;
  if (h <= 0xbf || (h >= 0xd9 && h <= 0xdb)) return Type::Str;
  if (h == 0xc0) return Type::Nil;
  if (h == 0xc2 || h == 0xc3) return Type::Bool;
  if (h >= 0xc4 && h <= 0xc6) return Type::Bin;
  if (h == 0xca || h == 0xcb) return Type::Float;
  return h == 0xc1 ? Type::Invalid : Type::Ext;
}

inline std::string_view type_name(Type t) {
  constexpr std::string_view names[] = {
      "nil",   "a bool", "a non-negative int",   "an int", "a float", "a str", "a bin", "an array",
      "a map", "an ext", "the invalid byte 0xc1"};
  return names[static_cast<size_t>(t)];
}

/// Reads MessagePack values from untrusted bytes. Every length and count is checked against the bytes that remain
/// before anything is read or allocated; errors are FormatError "[decode_op] op.field[i]: why (at byte n)".
class Reader {
 public:
  Reader(std::span<const std::byte> bytes, size_t pos) : bytes_(bytes), pos_(pos) {}
  /// The record's op, once known (errors name "record" before).
  std::string_view op;
  /// The decoder errors are reported as (FormatError's op).
  const char* context = "decode_op";

  /// Names a field (or an element, by index) in errors while it lives.
  class Scope {
   public:
    Scope(Reader& r, std::string_view name) : r_(r) { r.push({name, kNone}); }
    Scope(Reader& r, size_t index) : r_(r) { r.push({{}, index}); }
    ~Scope() { --r_.depth_; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Reader& r_;
  };

  size_t pos() const { return pos_; }
  [[noreturn]] void fail(const std::string& why) const;
  [[noreturn]] void expected(std::string_view what) {
    fail("expected " + std::string(what) + ", found " + std::string(type_name(type_of(peek()))));
  }
  /// The type of the next value; fails at the end of the bytes.
  Type next_type() { return type_of(peek()); }
  /// Consumes a nil when one comes next.
  bool nil();
  bool boolean();
  uint64_t uint();
  int64_t sint();
  /// A float, or an int converted to double.
  double number();
  std::string_view str();
  std::span<const std::byte> bin();
  /// An array's element count, at most the bytes that remain.
  size_t array();
  /// A map's pair count, at most half the bytes that remain.
  size_t map();
  /// A map key: a str.
  std::string_view key();

 private:
  struct Step {
    std::string_view name;
    size_t index;
  };
  static constexpr size_t kMaxSteps = 8;  // deeper than any field type nests
  void push(Step step) {
    if (depth_ < kMaxSteps) path_[depth_] = step;
    ++depth_;
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  uint8_t peek() {
    if (pos_ >= bytes_.size()) fail("truncated: the bytes end before the value");
    return static_cast<uint8_t>(bytes_[pos_]);
  }
  uint64_t big_endian(size_t n);
  std::span<const std::byte> take(uint64_t n);
  /// An int of any width: its value as two's complement bits, and whether it is negative.
  std::pair<uint64_t, bool> integer(std::string_view what);

  std::span<const std::byte> bytes_;
  size_t pos_;
  std::array<Step, kMaxSteps> path_{};
  size_t depth_ = 0;
};

}  // namespace scorch::ir::detail
