// Named MessagePack: the record as a MessagePack map (tensors as maps marked by "__tensor__",
// values as a bin), followed by a second object, the XXH3-64 of the first one's bytes.
#include <msgpack.h>

#include <limits>
#include <unordered_set>

#include "scorch/core/error.h"
#include "scorch/module/formats/codec.h"

namespace scorch::formats {

namespace {
constexpr int kMaxMpkDepth = 24;  // msgpack-c parses at most 32 nested containers; tensors add two

class MpkWriter {
 public:
  MpkWriter(ByteSink& sink, Precision precision) : precision_(precision) {
    msgpack_packer_init(&pk_, &sink, &MpkWriter::emit);
  }
  void map_header(size_t n) { msgpack_pack_map(&pk_, n); }
  void str(std::string_view s) { msgpack_pack_str_with_body(&pk_, s.data(), s.size()); }
  void value(const Record& r, int depth, const std::string& path);

 private:
  static int emit(void* sink, const char* data, size_t size) {
    static_cast<ByteSink*>(sink)->write(data, size);
    return 0;
  }
  void tensor(const RecordTensor& t, const std::string& path);
  msgpack_packer pk_;
  Precision precision_;
};

void MpkWriter::tensor(const RecordTensor& t, const std::string& path) {
  TensorData scratch;
  const TensorData& data = stored_form(t.data, precision_, scratch);
  if (data.bytes().size() > std::numeric_limits<uint32_t>::max())
    throw FormatError(
        "save", "'" + path + "': a tensor over 4 GiB does not fit MessagePack; use BinFileRecorder or safetensors");
  map_header(t.param_id ? 4 : 3);
  str(kTensorKey);
  str(dtype_name(data.dtype()));
  str("shape");
  msgpack_pack_array(&pk_, data.shape().rank());
  for (size_t d : data.shape().to_vector()) msgpack_pack_uint64(&pk_, d);
  str("data");
  msgpack_pack_bin_with_body(&pk_, data.bytes().data(), data.bytes().size());
  if (t.param_id) {
    str("param_id");
    msgpack_pack_uint64(&pk_, t.param_id);
  }
}

void MpkWriter::value(const Record& r, int depth, const std::string& path) {
  if (depth > kMaxMpkDepth)
    throw FormatError("save", "'" + path + "': records nest deeper than " + std::to_string(kMaxMpkDepth) + " levels");
  switch (r.kind()) {
    case RecordKind::Null: msgpack_pack_nil(&pk_); return;
    case RecordKind::Bool: r.as_bool() ? msgpack_pack_true(&pk_) : msgpack_pack_false(&pk_); return;
    case RecordKind::Int: msgpack_pack_int64(&pk_, r.as_int()); return;
    case RecordKind::Float: msgpack_pack_double(&pk_, r.as_float()); return;
    case RecordKind::String: str(r.as_string()); return;
    case RecordKind::Tensor: tensor(r.as_tensor(), path); return;
    case RecordKind::List:
      msgpack_pack_array(&pk_, r.size());
      for (size_t i = 0; i < r.size(); ++i) value(r.at(i), depth + 1, path + "." + std::to_string(i));
      return;
    case RecordKind::Map:
      map_header(r.size());
      for (const auto& [k, v] : r.as_map()) {
        if (k == kTensorKey) throw FormatError("save", "'" + path + "': the key \"__tensor__\" is reserved");
        str(k);
        value(v, depth + 1, path.empty() ? k : path + "." + k);
      }
      return;
  }
}

/// Converts parsed MessagePack objects into a Record, naming the path on errors.
class MpkReader {
 public:
  explicit MpkReader(const std::string& source) : source_(source) {}
  Record value(const msgpack_object& o, const std::string& path) const;

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw FormatError("load", source_ + ": '" + path + "': " + why);
  }
  static std::string_view text(const msgpack_object& o) { return {o.via.str.ptr, o.via.str.size}; }
  Record tensor(const msgpack_object_map& m, const std::string& path) const;
  const std::string& source_;
};

Record MpkReader::tensor(const msgpack_object_map& m, const std::string& path) const {
  std::string dtype;
  Shape shape;
  const msgpack_object* data = nullptr;
  uint64_t param_id = 0;
  bool has_shape = false;
  for (uint32_t i = 0; i < m.size; ++i) {
    const msgpack_object& k = m.ptr[i].key;
    const msgpack_object& v = m.ptr[i].val;
    if (k.type != MSGPACK_OBJECT_STR) fail(path, "tensor keys must be strings");
    std::string_view key = text(k);
    if (key == kTensorKey && v.type == MSGPACK_OBJECT_STR) dtype = std::string(text(v));
    else if (key == "shape" && v.type == MSGPACK_OBJECT_ARRAY) {
      std::vector<size_t> dims;
      for (uint32_t j = 0; j < v.via.array.size; ++j) {
        if (v.via.array.ptr[j].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
          fail(path, "tensor shape must hold non-negative integers");
        dims.push_back(v.via.array.ptr[j].via.u64);
      }
      shape = shape_from_file(dims, source_, path);
      has_shape = true;
    } else if (key == "data" && v.type == MSGPACK_OBJECT_BIN) data = &v;
    else if (key == "param_id" && v.type == MSGPACK_OBJECT_POSITIVE_INTEGER) param_id = v.via.u64;
    else fail(path, "unexpected tensor field '" + std::string(key) + "'");
  }
  if (dtype.empty() || !has_shape || !data) fail(path, "a tensor needs dtype, shape and data");
  DType dt;
  try {
    dt = dtype_from_name(dtype);
  } catch (const DTypeError&) { fail(path, "unknown dtype '" + dtype + "'"); }
  auto* p = reinterpret_cast<const std::byte*>(data->via.bin.ptr);
  return Record(tensor_from_file({p, data->via.bin.size}, shape, dt, source_, path), param_id);
}

Record MpkReader::value(const msgpack_object& o, const std::string& path) const {
  switch (o.type) {
    case MSGPACK_OBJECT_NIL: return Record();
    case MSGPACK_OBJECT_BOOLEAN: return Record(o.via.boolean);
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
      if (o.via.u64 > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) fail(path, "integer out of range");
      return Record(static_cast<int64_t>(o.via.u64));
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return Record(o.via.i64);
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: return Record(o.via.f64);
    case MSGPACK_OBJECT_STR: return Record(std::string(text(o)));
    case MSGPACK_OBJECT_ARRAY: {
      Record::List items;
      items.reserve(o.via.array.size);
      for (uint32_t i = 0; i < o.via.array.size; ++i)
        items.push_back(value(o.via.array.ptr[i], path + "." + std::to_string(i)));
      return Record(std::move(items));
    }
    case MSGPACK_OBJECT_MAP: {
      const msgpack_object_map& m = o.via.map;
      if (m.size > 0 && m.ptr[0].key.type == MSGPACK_OBJECT_STR && text(m.ptr[0].key) == kTensorKey)
        return tensor(m, path);
      Record out = Record::map();
      std::unordered_set<std::string_view> keys;
      for (uint32_t i = 0; i < m.size; ++i) {
        if (m.ptr[i].key.type != MSGPACK_OBJECT_STR) fail(path, "map keys must be strings");
        std::string key(text(m.ptr[i].key));
        if (!keys.insert(text(m.ptr[i].key)).second) fail(path, "duplicate key '" + key + "'");
        out.as_map_mut().emplace_back(key, value(m.ptr[i].val, path.empty() ? key : path + "." + key));
      }
      return out;
    }
    default: fail(path, "unsupported MessagePack type " + std::to_string(static_cast<int>(o.type)));
  }
}

/// Walks the MessagePack object at bytes[offset] without allocating, checking that every string, binary and
/// extension fits the remaining bytes and every array or map count is backed by at least a byte per element
/// (msgpack-c allocates the elements of a count before reading them); returns where the object ends.
class MpkScanner {
 public:
  MpkScanner(std::span<const std::byte> bytes, const std::string& source) : bytes_(bytes), source_(source) {}
  size_t object_end(size_t offset);

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw FormatError("load", source_ + ": MessagePack at byte " + std::to_string(at_) + ": " + why);
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  uint64_t big_endian(size_t n) {
    if (n > remaining()) fail("truncated (the file ends at byte " + std::to_string(bytes_.size()) + ")");
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
    pos_ += n;
    return v;
  }
  void skip(uint64_t n) {
    if (n > remaining())
      fail("a length of " + std::to_string(n) + " bytes exceeds the " + std::to_string(remaining()) + " that remain");
    pos_ += n;
  }
  /// count elements (arrays, per = 1) or pairs (maps, per = 2) follow; each takes at least a byte.
  void expect(uint64_t count, uint64_t per) {
    uint64_t items = count * per;  // count < 2^32
    if (items > remaining() || pending_ > remaining() - items)
      fail("a count of " + std::to_string(count) + (per == 2 ? " pairs" : " elements") + " exceeds the " +
           std::to_string(remaining()) + " bytes that remain");
    pending_ += items;
  }
  void item(uint8_t head);
  std::span<const std::byte> bytes_;
  const std::string& source_;
  size_t pos_ = 0, at_ = 0;
  uint64_t pending_ = 0;
};

size_t MpkScanner::object_end(size_t offset) {
  pos_ = offset;
  pending_ = 1;
  while (pending_ > 0) {
    at_ = pos_;
    --pending_;
    item(static_cast<uint8_t>(big_endian(1)));
  }
  return pos_;
}

void MpkScanner::item(uint8_t head) {
  if (head <= 0x7f || head >= 0xe0 || head == 0xc0 || head == 0xc2 || head == 0xc3) return;
  if ((head & 0xf0) == 0x80) return expect(head & 0x0f, 2);
  if ((head & 0xf0) == 0x90) return expect(head & 0x0f, 1);
  if ((head & 0xe0) == 0xa0) return skip(head & 0x1f);
  switch (head) {
    case 0xc4:
    case 0xd9: return skip(big_endian(1));  // bin8, str8
    case 0xc5:
    case 0xda: return skip(big_endian(2));
    case 0xc6:
    case 0xdb: return skip(big_endian(4));
    case 0xc7: return skip(big_endian(1) + 1);  // ext: length, type, data
    case 0xc8: return skip(big_endian(2) + 1);
    case 0xc9: return skip(big_endian(4) + 1);
    case 0xca: return skip(4);
    case 0xcb: return skip(8);
    case 0xcc:
    case 0xd0: return skip(1);
    case 0xcd:
    case 0xd1: return skip(2);
    case 0xce:
    case 0xd2: return skip(4);
    case 0xcf:
    case 0xd3: return skip(8);
    case 0xd4: return skip(2);  // fixext: type, then 1, 2, 4, 8 or 16 bytes
    case 0xd5: return skip(3);
    case 0xd6: return skip(5);
    case 0xd7: return skip(9);
    case 0xd8: return skip(17);
    case 0xdc: return expect(big_endian(2), 1);
    case 0xdd: return expect(big_endian(4), 1);
    case 0xde: return expect(big_endian(2), 2);
    case 0xdf: return expect(big_endian(4), 2);
    default: fail("invalid type byte 0xc1");
  }
}

/// One MessagePack object from bytes at *offset, scanned first; throws on truncated or malformed input.
void unpack_one(msgpack_unpacked& out, std::span<const std::byte> bytes, size_t* offset, const std::string& source) {
  bytes = bytes.first(MpkScanner(bytes, source).object_end(*offset));
  auto status = msgpack_unpack_next(&out, reinterpret_cast<const char*>(bytes.data()), bytes.size(), offset);
  if (status == MSGPACK_UNPACK_CONTINUE)
    throw FormatError("load",
                      source + ": truncated MessagePack (file ends at byte " + std::to_string(bytes.size()) + ")");
  if (status != MSGPACK_UNPACK_SUCCESS && status != MSGPACK_UNPACK_EXTRA_BYTES)
    throw FormatError("load", source + ": malformed MessagePack near byte " + std::to_string(*offset));
}
}  // namespace

void encode_mpk(const Record& metadata, const Record& item, Precision precision, ByteSink& sink) {
  HashingSink hashed(sink);
  MpkWriter writer(hashed, precision);
  writer.map_header(2);
  writer.str("metadata");
  writer.value(metadata, 1, "metadata");
  writer.str("item");
  writer.value(item, 1, "");
  MpkWriter trailer(sink, precision);
  trailer.value(Record(static_cast<int64_t>(hashed.digest() >> 1)), 0, "");
}

Record decode_mpk(std::span<const std::byte> bytes, const std::string& source) {
  msgpack_unpacked root, sum;
  msgpack_unpacked_init(&root);
  msgpack_unpacked_init(&sum);
  struct Free {
    msgpack_unpacked *a, *b;
    ~Free() { msgpack_unpacked_destroy(a), msgpack_unpacked_destroy(b); }
  } free_both{&root, &sum};
  size_t offset = 0;
  unpack_one(root, bytes, &offset, source);
  size_t body = offset;
  if (offset == bytes.size())
    throw FormatError("load", source + ": truncated (the checksum after byte " + std::to_string(body) + " is missing)");
  unpack_one(sum, bytes, &offset, source);
  uint64_t expected = checksum(bytes.first(body)) >> 1;
  if (sum.data.type != MSGPACK_OBJECT_POSITIVE_INTEGER || sum.data.via.u64 != expected || offset != bytes.size())
    throw FormatError("load", source + ": checksum mismatch: the file is corrupt or truncated");
  MpkReader reader(source);
  if (root.data.type != MSGPACK_OBJECT_MAP)
    throw FormatError("load", source + ": not a Scorch record (top level is not a map)");
  return take_item(reader.value(root.data, ""), source);
}

}  // namespace scorch::formats
