// torch.save files into records (pytorch.h): the archive's <name>/data.pkl is unpickled safely (pickle.h), each
// storage is read once from <name>/data/<key>, and each tensor is copied out of its storage through its offset
// and strides.
#include "scorch/import/pytorch/pytorch.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <span>

#include "scorch/core/error.h"
#include "scorch/core/shape.h"
#include "scorch/import/pytorch/pickle.h"
#include "scorch/module/formats/codec.h"
#include "scorch/module/formats/dotted_keys.h"
#include "scorch/import/pytorch/zip_archive.h"
#include "scorch/module/formats/byte_io.h"

namespace scorch::pytorch {
namespace {
using detail::Ref;
using detail::Value;

constexpr size_t kMaxDepth = 64;         // nesting of dicts and lists a file may have
constexpr size_t kMaxLeaves = 1u << 16;  // values a file may hold (a memoised object counts wherever it is placed)
constexpr size_t kMaxKey = 4096;         // characters of a dotted key

/// The archive's pickle entry, "<name>/data.pkl"; its "<name>/" prefixes the storages.
std::string find_pickle(const detail::ZipArchive& zip, const std::string& file) {
  for (const auto& name : zip.names()) {
    auto slash = name.find('/');
    if (slash != std::string::npos && name.substr(slash) == "/data.pkl") return name;
  }
  throw FormatError("load", file + ": the archive has no <name>/data.pkl entry (not written by torch.save)");
}

/// Where a file keeps its storages' bytes: a zip entry each, or spans of a legacy file.
class StorageSource {
 public:
  virtual ~StorageSource() = default;
  /// The bytes of storage s (bytes of the source, or kept until the source goes).
  virtual std::span<const std::byte> bytes(const detail::StorageRef& s) = 0;
};

/// The zip format: storage key k in entry "<name>/data/k", read once.
class ZipStorages : public StorageSource {
 public:
  ZipStorages(const detail::ZipArchive& zip, std::string prefix) : zip_(zip), prefix_(std::move(prefix)) {}
  std::span<const std::byte> bytes(const detail::StorageRef& s) override {
    auto found = read_.find(s.key);
    if (found != read_.end()) return found->second;
    std::string entry = prefix_ + "data/" + s.key;
    size_t size = zip_.size(entry);
    if (size > zip_.archive_size() - total_)  // entries that do not overlap fit in the archive
      throw FormatError("load", zip_.source() + ": entry '" + formats::short_key(entry) +
                                    "' overlaps others (the storages read pass the archive's size)");
    total_ += size;
    return read_.emplace(s.key, zip_.read(entry)).first->second;
  }

 private:
  const detail::ZipArchive& zip_;
  std::string prefix_;
  size_t total_ = 0;
  std::map<std::string, std::vector<std::byte>> read_;
};

/// The legacy format: each storage's bytes where the file's tail put them.
class LegacyStorages : public StorageSource {
 public:
  LegacyStorages(std::map<std::string, std::span<const std::byte>> spans, const std::string& file)
      : spans_(std::move(spans)), file_(file) {}
  std::span<const std::byte> bytes(const detail::StorageRef& s) override {
    auto found = spans_.find(s.key);
    if (found == spans_.end())
      throw FormatError("load", file_ + ": storage '" + formats::short_key(s.key) + "' is not in the file's list");
    return found->second;
  }

 private:
  std::map<std::string, std::span<const std::byte>> spans_;
  const std::string& file_;
};

class Reader {
 public:
  Reader(StorageSource& storages, size_t file_size, const std::string& file, const LoadOptions& options)
      : storages_(storages),
        file_size_(file_size),
        max_copy_ratio_(options.max_copy_ratio),
        file_(file),
        builder_(file, options.key_remaps) {}

  void add(const Value& v, const std::string& key, size_t depth);
  Record take() { return builder_.take(); }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw FormatError("load", file_ + ": '" + formats::short_key(key) + "': " + why);
  }
  Record leaf(const Value& v, const std::string& key);
  TensorData tensor(const detail::TensorRef& t, const std::string& key);
  std::span<const std::byte> storage(const detail::StorageRef& s, const std::string& key);

  StorageSource& storages_;
  size_t file_size_, max_copy_ratio_, copied_ = 0, leaves_ = 0;
  const std::string& file_;
  formats::DottedRecordBuilder builder_;
};

std::string child_key(const std::string& key, const std::string& part) { return key.empty() ? part : key + "." + part; }

std::string dict_key(const Value& k) {
  if (k.kind == Value::Kind::String) return k.text;
  if (k.kind == Value::Kind::Int) return std::to_string(k.integer);
  return "";
}

void Reader::add(const Value& v, const std::string& key, size_t depth) {
  if (depth > kMaxDepth) fail(key, "nests deeper than " + std::to_string(kMaxDepth) + " levels");
  if (key.size() > kMaxKey) fail(key, "a key longer than " + std::to_string(kMaxKey) + " characters");
  if (v.kind == Value::Kind::Dict) {
    for (const auto& [k, item] : v.entries) {
      std::string part = dict_key(*k);
      if (part.empty()) fail(key, "a dict key is a " + detail::kind_name(*k) + " (or empty), not a name");
      add(*item, child_key(key, part), depth + 1);
    }
    return;
  }
  if (v.kind == Value::Kind::List || v.kind == Value::Kind::Tuple) {
    for (size_t i = 0; i < v.items.size(); ++i) add(*v.items[i], child_key(key, std::to_string(i)), depth + 1);
    return;
  }
  if (key.empty()) fail(key, "the file holds a " + detail::kind_name(v) + ", not a dict");
  if (++leaves_ > kMaxLeaves) fail(key, "the file places more than " + std::to_string(kMaxLeaves) + " values");
  builder_.insert(key, leaf(v, key));
}

Record Reader::leaf(const Value& v, const std::string& key) {
  switch (v.kind) {
    case Value::Kind::None: return Record();
    case Value::Kind::Bool: return Record(v.boolean);
    case Value::Kind::Int: return Record(v.integer);
    case Value::Kind::Float: return Record(v.number);
    case Value::Kind::String: return Record(v.text);
    case Value::Kind::Tensor: return Record(tensor(v.tensor, key));
    default: fail(key, "a " + detail::kind_name(v) + " has no record form");
  }
}

std::span<const std::byte> Reader::storage(const detail::StorageRef& s, const std::string& key) {
  auto data = storages_.bytes(s);
  size_t bytes = data.size(), element = dtype_size(s.dtype);
  if (static_cast<uint64_t>(s.numel) > bytes / element || static_cast<uint64_t>(s.numel) * element != bytes)
    fail(key, "storage '" + s.key + "' claims " + std::to_string(s.numel) + " " + std::string(dtype_name(s.dtype)) +
                  " values but holds " + std::to_string(bytes) + " bytes");
  return data;
}

TensorData Reader::tensor(const detail::TensorRef& t, const std::string& key) {
  auto data = storage(t.storage, key);
  std::vector<size_t> dims;
  bool empty = false;
  for (size_t d = 0; d < t.size.size(); ++d) {
    if (t.size[d] < 0 || t.stride[d] < 0) fail(key, "has a negative size or stride");
    dims.push_back(static_cast<size_t>(t.size[d]));
    empty = empty || t.size[d] == 0;
  }
  __int128 last = t.offset;  // the largest element index the view reads: below numel before each step
  bool inside = t.offset >= 0 && (empty || last < t.storage.numel);
  for (size_t d = 0; d < t.size.size() && inside && !empty; ++d) {
    last += static_cast<__int128>(t.size[d] - 1) * t.stride[d];
    inside = last < t.storage.numel;
  }
  if (!inside)
    fail(key, "reads past its storage '" + t.storage.key + "' of " + std::to_string(t.storage.numel) + " values");
  Shape shape = formats::shape_from_file(dims, file_, key);
  size_t element = dtype_size(t.storage.dtype), n = shape.num_elements();
  // Charged before the copy is made: stride-0 views and storages shared by several tensors repeat values.
  size_t limit = std::min(checked_mul(max_copy_ratio_, file_size_).value_or(SIZE_MAX), SIZE_MAX / 2) + (1u << 20);
  size_t budget = limit > copied_ ? limit - copied_ : 0;
  if (n > budget / element)
    fail(key, "the tensors copied would pass " + std::to_string(max_copy_ratio_) +
                  " times the file's size (views repeating values, shared storages); "
                  "LoadOptions::max_copy_ratio raises the limit for a file you trust");
  copied_ += n * element;
  std::vector<std::byte> out(n * element);
  int64_t row_major = 1;  // a view laid out row-major (a state dict's usual tensor) is one block of its storage
  bool contiguous = true;
  for (size_t d = dims.size(); d-- > 0;) {
    contiguous = contiguous && (dims[d] == 1 || t.stride[d] == row_major);
    row_major *= static_cast<int64_t>(dims[d]);
  }
  if (contiguous && n > 0) std::memcpy(out.data(), data.data() + static_cast<size_t>(t.offset) * element, n * element);
  std::vector<size_t> index(dims.size(), 0);
  for (size_t i = 0; i < (contiguous ? 0 : n); ++i) {  // row-major over the view, reading through its strides
    int64_t at = t.offset;
    for (size_t d = 0; d < dims.size(); ++d) at += static_cast<int64_t>(index[d]) * t.stride[d];
    std::memcpy(out.data() + i * element, data.data() + static_cast<size_t>(at) * element, element);
    for (size_t d = dims.size(); d-- > 0;)
      if (++index[d] < dims[d]) break;
      else index[d] = 0;
  }
  if (t.storage.dtype == DType::Bool)
    for (std::byte b : out)
      if (static_cast<unsigned>(b) > 1) fail(key, "a bool storage holds a byte other than 0 and 1");
  return TensorData::from_bytes(std::move(out), shape, t.storage.dtype);
}

/// The object to read: the whole file, or the entry of its top-level dict the options name.
Ref select(const Ref& root, const LoadOptions& options, const std::string& file) {
  if (!options.top_level_key) return root;
  if (root->kind != Value::Kind::Dict)
    throw FormatError("load", file + ": top-level key '" + *options.top_level_key + "' asked of a " +
                                  detail::kind_name(*root) + ", not a dict");
  std::string keys;
  for (const auto& [k, v] : root->entries) {
    if (k->kind == Value::Kind::String && k->text == *options.top_level_key) return v;
    keys += (keys.empty() ? "'" : ", '") + dict_key(*k) + "'";
  }
  throw FormatError("load", file + ": no top-level key '" + *options.top_level_key + "' (the file has " +
                                (keys.empty() ? "none" : keys) + ")");
}

/// The legacy format's first pickle: the magic number 0x1950a86a20f9469cfc6c (protocol 2, LONG1 of 10 bytes).
constexpr unsigned char kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                          0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e};

/// The legacy (pre-1.6) format: pickles of the magic number, the protocol version (1001), the system's sizes, the
/// object, and its storages' keys; then each storage as an 8-byte count and its values.
Record load_legacy(std::span<const std::byte> bytes, const std::string& file, const LoadOptions& options) {
  size_t at = sizeof kLegacyMagic;
  auto next = [&] {
    auto result = detail::unpickle(bytes.subspan(at), file + " (legacy, byte " + std::to_string(at) + ")");
    at += result.consumed;
    return result;
  };
  auto version_pickle = next(), sys_info_pickle = next(), object = next(), keys_pickle = next();
  Ref version = version_pickle.object, sys_info = sys_info_pickle.object, keys = keys_pickle.object;
  if (version->kind != Value::Kind::Int || version->integer != 1001)
    throw FormatError("load", file + ": legacy protocol version is not 1001");
  if (sys_info->kind != Value::Kind::Dict) throw FormatError("load", file + ": legacy system info is not a dict");
  for (const auto& [k, v] : sys_info->entries)
    if (k->text == "little_endian" && !(v->kind == Value::Kind::Bool && v->boolean))
      throw FormatError("load", file + ": written on a big-endian machine");
  if (keys->kind != Value::Kind::List) throw FormatError("load", file + ": legacy storage keys are not a list");
  std::map<std::string, std::span<const std::byte>> spans;
  for (const auto& key : keys->items) {
    auto ref = std::find_if(object.storages.begin(), object.storages.end(),
                            [&](const detail::StorageRef& s) { return key->text == s.key; });
    if (key->kind != Value::Kind::String || ref == object.storages.end())
      throw FormatError("load", file + ": legacy storage key '" + key->text + "' names no storage");
    if (bytes.size() - at < 8) throw FormatError("load", file + ": truncated before storage '" + key->text + "'");
    uint64_t count = 0;
    std::memcpy(&count, bytes.data() + at, 8);
    size_t element = dtype_size(ref->dtype);
    if (count != static_cast<uint64_t>(ref->numel) || count > (bytes.size() - at - 8) / element)
      throw FormatError("load", file + ": storage '" + key->text + "' holds " + std::to_string(count) +
                                    " values where its id says " + std::to_string(ref->numel) + " or the file ends");
    spans.emplace(key->text, bytes.subspan(at + 8, count * element));
    at += 8 + count * element;
  }
  LegacyStorages storages(std::move(spans), file);
  Reader reader(storages, bytes.size(), file, options);
  reader.add(*select(object.object, options, file), "", 0);
  return reader.take();
}

}  // namespace

Record load(const std::string& file, const LoadOptions& options) {
  formats::MappedFile mapped(file);
  auto bytes = mapped.bytes();
  if (bytes.size() >= sizeof kLegacyMagic && std::memcmp(bytes.data(), kLegacyMagic, sizeof kLegacyMagic) == 0)
    return load_legacy(bytes, file, options);
  detail::ZipArchive zip(bytes, file);
  std::string pickle = find_pickle(zip, file);
  std::string prefix = pickle.substr(0, pickle.size() - std::string("data.pkl").size());
  if (zip.contains(prefix + "byteorder")) {  // PyTorch 2.x names it; earlier files are little-endian
    auto order = zip.read(prefix + "byteorder");
    if (std::string(reinterpret_cast<const char*>(order.data()), order.size()) != "little")
      throw FormatError("load", file + ": written with big-endian storages");
  }
  auto unpickled = detail::unpickle(zip.read(pickle), file + ":" + pickle);  // owns what root points to
  Ref root = unpickled.object;
  ZipStorages storages(zip, prefix);
  Reader reader(storages, bytes.size(), file, options);
  reader.add(*select(root, options, file), "", 0);
  return reader.take();
}

}  // namespace scorch::pytorch
