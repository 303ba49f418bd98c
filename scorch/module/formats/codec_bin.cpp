// The compact binary format: "SCORCHB1", then tagged little-endian values, tensor bytes
// aligned to 64 bytes from the file start (so they can be mapped in place), then XXH3-64.
#include <bit>
#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "scorch/core/error.h"
#include "scorch/module/formats/codec.h"

namespace scorch::formats {

namespace {
static_assert(std::endian::native == std::endian::little, "the binary record format is little-endian");
constexpr char kMagic[8] = {'S', 'C', 'O', 'R', 'C', 'H', 'B', '1'};
constexpr size_t kAlign = 64;
constexpr int kMaxBinDepth = 128;
constexpr uint64_t kMaxReserve = 4096;  // list slots reserved up front; more grow as elements parse
enum Tag : uint8_t { kNull, kFalse, kTrue, kInt, kFloat, kString, kList, kMap, kTensor };

class BinWriter {
 public:
  BinWriter(HashingSink& sink, Precision precision) : sink_(sink), precision_(precision) {}
  template <class T> void raw(T v) { sink_.write(&v, sizeof v); }
  void str(std::string_view s) {
    raw<uint64_t>(s.size());
    sink_.write(s.data(), s.size());
  }
  void value(const Record& r, int depth);

 private:
  void tensor(const RecordTensor& t);
  HashingSink& sink_;
  Precision precision_;
};

void BinWriter::tensor(const RecordTensor& t) {
  TensorData scratch;
  const TensorData& data = stored_form(t.data, precision_, scratch);
  raw<uint8_t>(kTensor);
  raw<uint8_t>(static_cast<uint8_t>(data.dtype()));
  raw<uint8_t>(static_cast<uint8_t>(data.shape().rank()));
  for (size_t d : data.shape().to_vector()) raw<uint64_t>(d);
  raw<uint64_t>(t.param_id);
  raw<uint64_t>(data.bytes().size());
  static constexpr std::byte zeros[kAlign] = {};
  sink_.write(zeros, (kAlign - sink_.offset() % kAlign) % kAlign);
  sink_.write(data.bytes().data(), data.bytes().size());
}

void BinWriter::value(const Record& r, int depth) {
  if (depth > kMaxBinDepth)
    throw FormatError("save", "records nest deeper than " + std::to_string(kMaxBinDepth) + " levels");
  switch (r.kind()) {
    case RecordKind::Null: return raw<uint8_t>(kNull);
    case RecordKind::Bool: return raw<uint8_t>(r.as_bool() ? kTrue : kFalse);
    case RecordKind::Int: raw<uint8_t>(kInt); return raw<int64_t>(r.as_int());
    case RecordKind::Float: raw<uint8_t>(kFloat); return raw<double>(r.as_float());
    case RecordKind::String: raw<uint8_t>(kString); return str(r.as_string());
    case RecordKind::Tensor: return tensor(r.as_tensor());
    case RecordKind::List:
      raw<uint8_t>(kList);
      raw<uint64_t>(r.size());
      for (const auto& v : r.as_list()) value(v, depth + 1);
      return;
    case RecordKind::Map:
      raw<uint8_t>(kMap);
      raw<uint64_t>(r.size());
      for (const auto& [k, v] : r.as_map()) {
        str(k);
        value(v, depth + 1);
      }
      return;
  }
}

/// A bounds-checked reader over the checked body.
class BinReader {
 public:
  BinReader(std::span<const std::byte> body, const std::string& source) : body_(body), source_(source) {}
  Record value(int depth, const std::string& path);
  bool at_end() const { return pos_ == body_.size(); }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw FormatError("load", source_ + ": '" + path + "' (byte " + std::to_string(pos_) + "): " + why);
  }
  void need(size_t n, const std::string& path) const {
    if (n > body_.size() - pos_) fail(path, "truncated");
  }
  template <class T> T raw(const std::string& path) {
    need(sizeof(T), path);
    T v;
    std::memcpy(&v, body_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string str(const std::string& path) {
    auto n = raw<uint64_t>(path);
    need(n, path);
    std::string s(reinterpret_cast<const char*>(body_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  Record tensor(const std::string& path);
  std::span<const std::byte> body_;
  const std::string& source_;
  size_t pos_ = sizeof kMagic;
};

Record BinReader::tensor(const std::string& path) {
  auto dtype_code = raw<uint8_t>(path);
  auto rank = raw<uint8_t>(path);
  if (dtype_code > static_cast<uint8_t>(DType::Bool)) fail(path, "unknown dtype code " + std::to_string(dtype_code));
  if (rank > kMaxRank) fail(path, "rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank));
  std::vector<size_t> dims(rank);
  for (auto& d : dims) d = raw<uint64_t>(path);
  auto param_id = raw<uint64_t>(path);
  auto nbytes = raw<uint64_t>(path);
  auto dtype = static_cast<DType>(dtype_code);
  Shape shape = shape_from_file(dims, source_, path);
  if (nbytes != tensor_bytes_from_file(shape, dtype, source_, path))
    fail(path, "tensor " + std::string(dtype_name(dtype)) + shape.to_string() + " cannot hold " +
                   std::to_string(nbytes) + " bytes");
  size_t pad = (kAlign - pos_ % kAlign) % kAlign;
  need(pad + nbytes, path);  // nbytes <= INT64_MAX (checked above), so the sum does not wrap
  pos_ += pad;
  auto data = body_.subspan(pos_, nbytes);
  pos_ += nbytes;
  return Record(tensor_from_file(data, shape, dtype, source_, path), param_id);
}

Record BinReader::value(int depth, const std::string& path) {
  if (depth > kMaxBinDepth) fail(path, "records nest deeper than " + std::to_string(kMaxBinDepth) + " levels");
  auto tag = raw<uint8_t>(path);
  switch (tag) {
    case kNull: return Record();
    case kFalse: return Record(false);
    case kTrue: return Record(true);
    case kInt: return Record(raw<int64_t>(path));
    case kFloat: return Record(raw<double>(path));
    case kString: return Record(str(path));
    case kTensor: return tensor(path);
    case kList: {
      auto n = raw<uint64_t>(path);
      need(n, path);  // every element takes at least one byte
      Record::List items;
      items.reserve(std::min<uint64_t>(n, kMaxReserve));
      for (uint64_t i = 0; i < n; ++i) items.push_back(value(depth + 1, path + "." + std::to_string(i)));
      return Record(std::move(items));
    }
    case kMap: {
      auto n = raw<uint64_t>(path);
      need(n, path);
      Record out = Record::map();
      std::unordered_set<std::string> keys;
      for (uint64_t i = 0; i < n; ++i) {
        std::string key = str(path);
        if (!keys.insert(key).second) fail(path, "duplicate key '" + key + "'");
        Record v = value(depth + 1, path.empty() ? key : path + "." + key);
        out.as_map_mut().emplace_back(std::move(key), std::move(v));
      }
      return out;
    }
    default: fail(path, "unknown value tag " + std::to_string(tag));
  }
}
}  // namespace

void encode_bin(const Record& metadata, const Record& item, Precision precision, ByteSink& sink) {
  HashingSink hashed(sink);
  hashed.write(kMagic, sizeof kMagic);
  BinWriter writer(hashed, precision);
  writer.raw<uint8_t>(kMap);
  writer.raw<uint64_t>(2);
  writer.str("metadata");
  writer.value(metadata, 1);
  writer.str("item");
  writer.value(item, 1);
  uint64_t sum = hashed.digest();
  sink.write(&sum, sizeof sum);
}

Record decode_bin(std::span<const std::byte> bytes, const std::string& source) {
  if (bytes.size() < sizeof kMagic + 8 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    if (bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0)
      throw FormatError("load", source + ": truncated (" + std::to_string(bytes.size()) + " bytes)");
    throw FormatError("load", source + ": not a Scorch binary record (bad magic)");
  }
  auto body = bytes.first(bytes.size() - 8);
  uint64_t sum;
  std::memcpy(&sum, bytes.data() + body.size(), 8);
  if (checksum(body) != sum)
    throw FormatError("load", source + ": checksum mismatch: the file is corrupt or truncated");
  BinReader reader(body, source);
  Record envelope = reader.value(0, "");
  if (!reader.at_end()) throw FormatError("load", source + ": unexpected bytes after the record");
  return take_item(std::move(envelope), source);
}

}  // namespace scorch::formats
