// Hostile record, config and safetensors files (issue 21): sizes that claim more than the file holds, counts that
// wrap, bool bytes other than 0/1, gzip bombs, deep nesting and out-of-range numbers. Each gives a scorch::Error
// that starts with the op and names the file, quickly and without allocating what the file claims.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <fstream>

#include <scorch/scorch.hpp>

#include "support/expect_error.h"
#include "support/temp_dir.h"

namespace scorch::testing {

struct TinyConfig {
  size_t width = 1;
  std::vector<double> scales = {1.0};
  SCORCH_CONFIG(TinyConfig, (), (width, scales))
};

namespace {

using Bytes = std::vector<std::byte>;

void write_file(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
void write_file(const std::string& path, std::string_view text) { write_file(path, std::as_bytes(std::span(text))); }

/// A binary record (BinFileRecorder's format) written by hand, so its sizes can lie.
class BinBuilder {
 public:
  BinBuilder() {
    raw("SCORCHB1");
    map(2), str("metadata"), map(2), str("format"), tag(5), str("scorch-record"), str("version"), tag(3), u64(1);
    str("item");
  }
  void tag(uint8_t t) { bytes_.push_back(std::byte{t}); }
  void u64(uint64_t v) { raw({reinterpret_cast<const char*>(&v), 8}); }
  void raw(std::string_view s) {
    for (char c : s) bytes_.push_back(static_cast<std::byte>(c));
  }
  void str(std::string_view s) { u64(s.size()), raw(s); }
  void map(uint64_t n) { tag(7), u64(n); }
  /// A tensor header claiming dims and nbytes, padded to 64 bytes; the caller appends the data.
  void tensor(DType dtype, const std::vector<uint64_t>& dims, uint64_t nbytes) {
    tag(8), tag(static_cast<uint8_t>(dtype)), tag(static_cast<uint8_t>(dims.size()));
    for (uint64_t d : dims) u64(d);
    u64(0), u64(nbytes);
    bytes_.resize((bytes_.size() + 63) / 64 * 64);
  }
  /// The bytes with their checksum.
  Bytes finish() const {
    Bytes out = bytes_;
    uint64_t sum = formats::checksum(out);
    auto* p = reinterpret_cast<const std::byte*>(&sum);
    out.insert(out.end(), p, p + 8);
    return out;
  }

 private:
  Bytes bytes_;
};

Bytes mpk_bytes(std::initializer_list<int> values) {
  Bytes out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

void append(Bytes& out, std::string_view s) {
  for (char c : s) out.push_back(static_cast<std::byte>(c));
}
void append_fixstr(Bytes& out, std::string_view s) {
  out.push_back(static_cast<std::byte>(0xa0 | s.size()));
  append(out, s);
}
void append_big_endian(Bytes& out, uint64_t v, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) out.push_back(static_cast<std::byte>(v >> shift));
}

/// A named MessagePack record written by hand: the envelope, then raw item bytes, then the checksum.
Bytes mpk_record(const Bytes& item) {
  Bytes out = mpk_bytes({0x82});
  append_fixstr(out, "metadata"), out.push_back(std::byte{0x82});
  append_fixstr(out, "format"), append_fixstr(out, "scorch-record"), append_fixstr(out, "version");
  out.push_back(std::byte{0x01}), append_fixstr(out, "item");
  out.insert(out.end(), item.begin(), item.end());
  uint64_t sum = formats::checksum(out) >> 1;
  out.push_back(std::byte{0xcf}), append_big_endian(out, sum, 8);
  return out;
}

/// A MessagePack tensor map {__tensor__: dtype, shape: dims, data: bin32 of data}.
Bytes mpk_tensor(const std::string& dtype, const std::vector<uint64_t>& dims, const Bytes& data) {
  Bytes out = mpk_bytes({0x83});
  append_fixstr(out, "__tensor__"), append_fixstr(out, dtype), append_fixstr(out, "shape");
  out.push_back(static_cast<std::byte>(0x90 | dims.size()));
  for (uint64_t d : dims) out.push_back(std::byte{0xcf}), append_big_endian(out, d, 8);
  append_fixstr(out, "data");
  out.push_back(std::byte{0xc6}), append_big_endian(out, data.size(), 4);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

/// A safetensors file: the header's length, the header, then data.
Bytes safetensors_file(const std::string& header, const Bytes& data = {}) {
  uint64_t n = header.size();
  Bytes out(reinterpret_cast<const std::byte*>(&n), reinterpret_cast<const std::byte*>(&n) + 8);
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string json_record(const std::string& item) {
  return R"({"metadata": {"format": "scorch-record", "version": 1}, "item": )" + item + "}";
}

/// n opening brackets then n closing ones.
std::string nested_json(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

constexpr uint64_t k2To20 = uint64_t{1} << 20, k2To32 = uint64_t{1} << 32;

TEST(AdversarialRecords, ShapesClaimingMoreThanThePayloadAreRejected) {
  TempDir dir("adv-shape");
  for (auto dims : {std::vector<uint64_t>{k2To20, k2To20}, std::vector<uint64_t>{k2To32, k2To32}}) {
    BinBuilder bin;
    bin.tensor(DType::F32, dims, 0);
    write_file(dir.file("x.bin"), bin.finish());
    expect_rejected([&] { (void)BinFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.bin"), "tensor");
    expect_rejected([&] { (void)BinBytesRecorder<>{}.load(bin.finish()); }, "load", "<bytes>", "tensor");

    write_file(dir.file("x.mpk"), mpk_record(mpk_tensor("f32", dims, mpk_bytes({1, 2, 3, 4}))));
    expect_rejected([&] { (void)NamedMpkFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.mpk"), "tensor");

    std::string shape = "[" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + "]";
    write_file(dir.file("x.json"), json_record(R"({"__tensor__": "f32", "shape": )" + shape + R"(, "values": []})"));
    expect_rejected([&] { (void)PrettyJsonFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.json"),
                    "tensor");

    write_file(dir.file("x.safetensors"),
               safetensors_file(R"({"w": {"dtype": "F32", "shape": )" + shape + R"(, "data_offsets": [0, 4]}})",
                                mpk_bytes({0, 0, 0, 0})));
    expect_rejected([&] { (void)SafetensorsFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.safetensors"),
                    "'w'");
  }
}

TEST(AdversarialRecords, WrappingShapesNameTheOverflow) {
  BinBuilder bin;
  bin.tensor(DType::F32, {k2To32, k2To32}, 0);  // 2^64 elements: the product wraps to 0, like the 0 bytes given
  expect_error_mentions<FormatError>([&] { (void)BinBytesRecorder<>{}.load(bin.finish()); },
                                     {"<bytes>", "[4294967296, 4294967296]", "overflows"});
  BinBuilder rank;
  rank.tensor(DType::F32, std::vector<uint64_t>(9, 1), 4);
  expect_error_mentions<FormatError>([&] { (void)BinBytesRecorder<>{}.load(rank.finish()); }, {"rank 9"});
}

TEST(AdversarialRecords, SafetensorsHeaderLengthBeyondTheFile) {
  TempDir dir("adv-st-len");
  Bytes file = safetensors_file("{}");
  uint64_t huge = uint64_t{1} << 63;
  std::memcpy(file.data(), &huge, 8);
  write_file(dir.file("x.safetensors"), file);
  expect_rejected([&] { (void)SafetensorsFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.safetensors"),
                  "header length 9223372036854775808");
}

TEST(AdversarialRecords, BoolBytesMustBeZeroOrOne) {
  TempDir dir("adv-bool");
  for (int value : {2, 58, 255}) {
    BinBuilder bin;
    bin.tensor(DType::Bool, {2}, 2);
    Bytes bytes = bin.finish();
    bytes.resize(bytes.size() - 8);
    bytes.push_back(std::byte{1}), bytes.push_back(static_cast<std::byte>(value));
    uint64_t sum = formats::checksum(bytes);
    bytes.insert(bytes.end(), reinterpret_cast<std::byte*>(&sum), reinterpret_cast<std::byte*>(&sum) + 8);
    std::string byte_text = "is byte " + std::to_string(value);
    expect_error_mentions<FormatError>([&] { (void)BinBytesRecorder<>{}.load(bytes); }, {"bool value 1", byte_text});

    write_file(dir.file("x.mpk"), mpk_record(mpk_tensor("bool", {2}, mpk_bytes({0, value}))));
    expect_rejected([&] { (void)NamedMpkFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.mpk"), byte_text);

    write_file(
        dir.file("x.safetensors"),
        safetensors_file(R"({"m": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}})", mpk_bytes({value, 1})));
    expect_rejected([&] { (void)SafetensorsFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.safetensors"),
                    "'m': bool value 0 " + byte_text);
  }
}

TEST(AdversarialRecords, MessagePackCountsBeyondTheFile) {
  TempDir dir("adv-mpk");
  // array32, map32, str32 and bin32 claiming 2^32 - 1 elements or bytes, in front of a few bytes.
  for (int head : {0xdd, 0xdf, 0xdb, 0xc6}) {
    write_file(dir.file("x.mpk"), mpk_record(mpk_bytes({head, 0xff, 0xff, 0xff, 0xff, 0, 0, 0})));
    expect_rejected([&] { (void)NamedMpkFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.mpk"),
                    "4294967295");
  }
}

/// A gzip member of bytes (level 9).
Bytes gzip_member(std::span<const std::byte> bytes) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  Bytes out(deflateBound(&z, bytes.size()));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// prefix then 1 GiB of zeros, as 1,024 gzip members of 1 MiB each (about 1 MB on disk).
Bytes gzip_bomb(std::span<const std::byte> prefix) {
  Bytes out = gzip_member(prefix), zeros = gzip_member(Bytes(size_t{1} << 20));
  for (int i = 0; i < 1024; ++i) out.insert(out.end(), zeros.begin(), zeros.end());
  return out;
}

TEST(AdversarialRecords, GzipBombsStopAtTheLimit) {
  TempDir dir("adv-bomb");
  write_file(dir.file("zeros.bin.gz"), gzip_bomb({}));
  expect_rejected([&] { (void)BinGzFileRecorder<>{}.load(dir.file("zeros")); }, "load", dir.file("zeros.bin.gz"),
                  "the inflated data is not a binary record");
  BinBuilder bin;
  bin.tensor(DType::F32, {uint64_t{1} << 28}, uint64_t{1} << 30);  // a valid start, then 1 GiB of "tensor" zeros
  Bytes start = bin.finish();
  start.resize(start.size() - 8);
  write_file(dir.file("crafted.bin.gz"), gzip_bomb(start));
  expect_rejected([&] { (void)BinGzFileRecorder<>{}.load(dir.file("crafted")); }, "load", dir.file("crafted.bin.gz"),
                  "inflates to more than 67108864 bytes");
  expect_rejected([&] { (void)BinGzFileRecorder<>{.max_inflated_bytes = 1 << 20}.load(dir.file("crafted")); }, "load",
                  dir.file("crafted.bin.gz"), "more than 1048576 bytes, the limit (the recorder's max_inflated_bytes)");
}

TEST(AdversarialRecords, DeepJsonIsAnErrorNotACrash) {
  TempDir dir("adv-deep");
  write_file(dir.file("deep.json"), json_record(nested_json(100000)));
  expect_rejected([&] { (void)PrettyJsonFileRecorder<>{}.load(dir.file("deep")); }, "load", dir.file("deep.json"),
                  "nests deeper than 512 levels");
  write_file(dir.file("config.json"), R"({"scales": )" + nested_json(100000) + "}");
  expect_rejected([&] { (void)TinyConfig::load(dir.file("config.json")); }, "load", dir.file("config.json"),
                  "nests deeper than 512 levels");
  write_file(dir.file("ok.json"), R"({"scales": )" + std::string(100, '[') + "1.5" + std::string(100, ']') + "}");
  expect_error_mentions<FormatError>([&] { (void)TinyConfig::load(dir.file("ok.json")); }, {"scales", "a number"});
}

TEST(AdversarialRecords, NumbersBeyondDoubleAreErrors) {
  TempDir dir("adv-1e400");
  write_file(dir.file("big.json"), json_record(R"({"lr": 1e400})"));
  expect_rejected([&] { (void)PrettyJsonFileRecorder<>{}.load(dir.file("big")); }, "load", dir.file("big.json"),
                  "number overflow");
  write_file(dir.file("config.json"), R"({"width": 2, "scales": [1e400]})");
  expect_rejected([&] { (void)TinyConfig::load(dir.file("config.json")); }, "load", dir.file("config.json"),
                  "number overflow");
  write_file(dir.file("x.safetensors"), safetensors_file(R"({"__metadata__": {"x": 1e400}})"));
  expect_rejected([&] { (void)SafetensorsFileRecorder<>{}.load(dir.file("x")); }, "load", dir.file("x.safetensors"),
                  "number overflow");
}

TEST(AdversarialRecords, LongAndDeepSafetensorsKeys) {
  TempDir dir("adv-keys");
  auto file_with_key = [&](const std::string& key) {
    write_file(dir.file("k.safetensors"),
               safetensors_file(R"({")" + key + R"(": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}})",
                                mpk_bytes({7})));
  };
  file_with_key(std::string(100000, 'a'));
  auto remapped = SafetensorsFileRecorder<>{}.with_key_remap("(.*)", "x.$1");
  expect_rejected([&] { (void)remapped.load(dir.file("k")); }, "load", dir.file("k.safetensors"),
                  "is 100000 characters long; key remapping handles keys up to 1024");
  EXPECT_EQ(SafetensorsFileRecorder<>{}.load(dir.file("k")).size(), 1u);  // no remap, no regex: loads
  file_with_key("conv.weight");
  EXPECT_NE(remapped.load(dir.file("k")).find("x"), nullptr);
  std::string dotted = "a";
  for (int i = 0; i < 10000; ++i) dotted += ".a";
  file_with_key(dotted);
  expect_rejected([&] { (void)SafetensorsFileRecorder<>{}.load(dir.file("k")); }, "load", dir.file("k.safetensors"),
                  "more than 128 dotted parts");
  expect_error<ValueError>([&] { (void)SafetensorsFileRecorder<>{}.with_key_remap("(", "").load(dir.file("k")); },
                           "[load] " + dir.file("k.safetensors") + ": key remap pattern '(' is not a valid regex");
}

// Loading is linear in the key count: 60,000 keys in one map (once quadratic: minutes) load in file order, and a
// key given twice is an error rather than a silent choice.
TEST(AdversarialRecords, WideMapsLoadInOrderAndDuplicatesAreErrors) {
  TempDir dir("adv-wide");
  constexpr int kKeys = 60000;
  std::string header = "{", record = "{";
  for (int i = kKeys - 1; i >= 0; --i) {
    std::string key = "k" + std::to_string(i);
    header += (i == kKeys - 1 ? "\"" : ",\"") + key + R"(": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]})";
    record += (i == kKeys - 1 ? "\"" : ",\"") + key + "\": " + std::to_string(i);
  }
  write_file(dir.file("wide.safetensors"), safetensors_file(header + "}"));
  Record tensors = SafetensorsFileRecorder<>{}.load(dir.file("wide"));
  ASSERT_EQ(tensors.size(), size_t{kKeys});
  EXPECT_EQ(tensors.as_map().front().first, "k" + std::to_string(kKeys - 1));
  EXPECT_EQ(tensors.as_map().back().first, "k0");
  write_file(dir.file("wide.json"), json_record(record + "}"));
  Record values = PrettyJsonFileRecorder<>{}.load(dir.file("wide"));
  ASSERT_EQ(values.size(), size_t{kKeys});
  EXPECT_EQ(values.as_map().front().first, "k" + std::to_string(kKeys - 1));
  EXPECT_EQ(values.at("k7").as_int(), 7);
  write_file(dir.file("twice.json"), json_record(R"({"lr": 1, "beta": 2, "lr": 3})"));
  expect_rejected([&] { (void)PrettyJsonFileRecorder<>{}.load(dir.file("twice")); }, "load", dir.file("twice.json"),
                  "duplicate JSON key 'lr'");
  write_file(dir.file("twice.safetensors"),
             safetensors_file(R"({"a.b": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]},)"
                              R"( "a.b": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]}})"));
  expect_rejected([&] { (void)SafetensorsFileRecorder<>{}.load(dir.file("twice")); }, "load",
                  dir.file("twice.safetensors"), "duplicate JSON key 'a.b'");
}

}  // namespace
}  // namespace scorch::testing
