// The op IR's MessagePack reader (msgpack_io.h): every length and count checked against the bytes that remain.
#include "scorch/ir/msgpack_io.h"

namespace scorch::ir::detail {

void Reader::fail(const std::string& why) const {
  std::string where = op.empty() ? "record" : std::string(op);
  for (size_t i = 0; i < std::min(depth_, kMaxSteps); ++i) {
    if (path_[i].index == kNone) {
      where += '.';
      where += path_[i].name;
    } else {
      where += '[';
      where += std::to_string(path_[i].index);
      where += ']';
    }
  }
  throw FormatError(context, where + ": " + why + " (at byte " + std::to_string(pos_) + ")");
}

uint64_t Reader::big_endian(size_t n) {
  if (n > remaining())
    fail("truncated: the value needs " + std::to_string(n) + " more bytes, " + std::to_string(remaining()) + " remain");
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
  pos_ += n;
  return v;
}

std::span<const std::byte> Reader::take(uint64_t n) {
  if (n > remaining())
    fail("a length of " + std::to_string(n) + " bytes exceeds the " + std::to_string(remaining()) + " that remain");
  auto out = bytes_.subspan(pos_, n);
  pos_ += n;
  return out;
}

bool Reader::nil() {
  if (peek() != 0xc0) return false;
  ++pos_;
  return true;
}

bool Reader::boolean() {
  uint8_t h = peek();
  if (h != 0xc2 && h != 0xc3) expected("a bool");
  ++pos_;
  return h == 0xc3;
}

std::pair<uint64_t, bool> Reader::integer(std::string_view what) {
  uint8_t h = peek();
  Type t = type_of(h);
  if (t != Type::UInt && t != Type::Int) expected(what);
  ++pos_;
  if (h <= 0x7f) return {h, false};
  if (h >= 0xe0) return {static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(h))), true};
  if (h <= 0xcf) return {big_endian(size_t{1} << (h - 0xcc)), false};
  size_t n = size_t{1} << (h - 0xd0);
  uint64_t bits = big_endian(n);
  int64_t v = n == 1   ? static_cast<int8_t>(bits)
              : n == 2 ? static_cast<int16_t>(bits)
              : n == 4 ? static_cast<int32_t>(bits)
                       : static_cast<int64_t>(bits);
  return {static_cast<uint64_t>(v), v < 0};
}

uint64_t Reader::uint() {
  auto [bits, negative] = integer("a non-negative int");
  if (negative) fail("expected a non-negative int, found " + std::to_string(static_cast<int64_t>(bits)));
  return bits;
}

int64_t Reader::sint() {
  auto [bits, negative] = integer("an int");
  if (!negative && bits > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    fail("int " + std::to_string(bits) + " exceeds the int64 range");
  return static_cast<int64_t>(bits);
}

double Reader::number() {
  uint8_t h = peek();
  if (h == 0xca || h == 0xcb) {
    ++pos_;
    if (h == 0xca) return scorch::bit_cast<float>(static_cast<uint32_t>(big_endian(4)));
    return scorch::bit_cast<double>(big_endian(8));
  }
  Type t = type_of(h);
  if (t == Type::Int) return static_cast<double>(sint());
  if (t == Type::UInt) return static_cast<double>(uint());
  expected("a float");
}

std::string_view Reader::str() {
  uint8_t h = peek();
  if (type_of(h) != Type::Str) expected("a str");
  ++pos_;
  uint64_t n = h <= 0xbf ? h & 0x1f : big_endian(size_t{1} << (h - 0xd9));
  auto b = take(n);
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::span<const std::byte> Reader::bin() {
  uint8_t h = peek();
  if (type_of(h) != Type::Bin) expected("a bin");
  ++pos_;
  return take(big_endian(size_t{1} << (h - 0xc4)));
}

size_t Reader::array() {
  uint8_t h = peek();
  if (type_of(h) != Type::Array) expected("an array");
  ++pos_;
  uint64_t n = h <= 0x9f ? h & 0x0f : big_endian(h == 0xdc ? 2 : 4);
  if (n > remaining())
    fail("a count of " + std::to_string(n) + " elements exceeds the " + std::to_string(remaining()) +
         " bytes that remain");
  return n;
}

size_t Reader::map() {
  uint8_t h = peek();
  if (type_of(h) != Type::Map) expected("a map");
  ++pos_;
  uint64_t n = h <= 0x8f ? h & 0x0f : big_endian(h == 0xde ? 2 : 4);
  if (n > remaining() / 2)
    fail("a count of " + std::to_string(n) + " pairs exceeds the " + std::to_string(remaining()) +
         " bytes that remain");
  return n;
}

std::string_view Reader::key() {
  if (next_type() != Type::Str) expected("a field name (a str)");
  return str();
}

}  // namespace scorch::ir::detail
