// Safetensors: an 8-byte little-endian header length, a JSON header {key: {dtype, shape,
// data_offsets}}, then the tensors' bytes back to back. Keys are the record's dotted paths.
#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "scorch/core/error.h"
#include "scorch/module/formats/byte_io.h"
#include "scorch/module/formats/dotted_keys.h"
#include "scorch/module/formats/json_parse.h"
#include "scorch/module/recorder.h"

namespace scorch::detail {

namespace {
using json = nlohmann::ordered_json;
constexpr uint64_t kMaxHeader = 100u << 20;
using formats::short_key;

constexpr std::pair<DType, std::string_view> kDTypeNames[] = {
    {DType::F64, "F64"}, {DType::F32, "F32"}, {DType::F16, "F16"}, {DType::BF16, "BF16"}, {DType::I64, "I64"},
    {DType::I32, "I32"}, {DType::I16, "I16"}, {DType::I8, "I8"},   {DType::U8, "U8"},     {DType::Bool, "BOOL"}};

std::string_view safetensors_name(DType d) {
  for (auto [dt, name] : kDTypeNames)
    if (dt == d) return name;
  return "?";
}

struct FlatTensor {
  std::string key;
  const TensorData* data;
};

/// The record's tensors with dotted keys, in record order; throws on values safetensors cannot hold.
void flatten(const Record& r, const std::string& path, std::vector<FlatTensor>& out, const std::string& file) {
  switch (r.kind()) {
    case RecordKind::Null: return;
    case RecordKind::Tensor: out.push_back({path, &r.as_tensor().data}); return;
    case RecordKind::List:
      for (size_t i = 0; i < r.size(); ++i)
        flatten(r.at(i), path.empty() ? std::to_string(i) : path + "." + std::to_string(i), out, file);
      return;
    case RecordKind::Map:
      for (const auto& [k, v] : r.as_map()) flatten(v, path.empty() ? k : path + "." + k, out, file);
      return;
    default:
      throw FormatError("save", file + ": '" + path + "' is a " + std::string(record_kind_name(r.kind())) +
                                    "; safetensors holds only tensors");
  }
}

DType parse_dtype(const json& j, const std::string& file, const std::string& key) {
  if (j.is_string())
    for (auto [dt, name] : kDTypeNames)
      if (j.get<std::string>() == name) return dt;
  throw FormatError("load", file + ": '" + key + "': unsupported dtype " + j.dump());
}

struct Entry {
  std::string key;
  DType dtype;
  Shape shape;
  uint64_t begin, end;
};

/// One header entry, checked: dtype, shape, and offsets within the data_size bytes that match the shape.
Entry parse_entry(const std::string& key, const json& info, size_t data_size, const std::string& file) {
  auto fail = [&](const std::string& why) { throw FormatError("load", file + ": '" + short_key(key) + "': " + why); };
  if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") || !info.contains("data_offsets"))
    fail("needs dtype, shape and data_offsets");
  DType dt = parse_dtype(info["dtype"], file, key);
  if (!info["shape"].is_array()) fail("shape must be a list");
  std::vector<size_t> dims;
  for (const auto& d : info["shape"]) {
    if (!d.is_number_unsigned()) fail("shape must hold non-negative integers");
    dims.push_back(d.get<size_t>());
  }
  const json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    fail("data_offsets must be [begin, end]");
  Entry e{key, dt, formats::shape_from_file(dims, file, key), offsets[0].get<uint64_t>(), offsets[1].get<uint64_t>()};
  if (e.begin > e.end || e.end > data_size)
    fail("data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "] fall outside the " +
         std::to_string(data_size) + " data bytes");
  if (e.end - e.begin != formats::tensor_bytes_from_file(e.shape, dt, file, key))
    fail("shape " + e.shape.to_string() + " does not match " + std::to_string(e.end - e.begin) + " bytes");
  return e;
}

}  // namespace

std::string save_safetensors(const Record& record, const std::string& file, formats::Precision precision) {
  std::vector<FlatTensor> flat;
  flatten(record, "", flat, file);
  std::vector<TensorData> scratch(flat.size());
  json header = json::object();
  header["__metadata__"] = {{"format", "pt"}};
  uint64_t offset = 0;
  for (size_t i = 0; i < flat.size(); ++i) {
    flat[i].data = &formats::stored_form(*flat[i].data, precision, scratch[i]);
    uint64_t size = flat[i].data->bytes().size();
    header[flat[i].key] = {{"dtype", safetensors_name(flat[i].data->dtype())},
                           {"shape", flat[i].data->shape().to_vector()},
                           {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  formats::atomic_write(file, [&](formats::ByteSink& sink) {
    uint64_t n = text.size();
    sink.write(&n, sizeof n);
    sink.write(text.data(), text.size());
    for (const auto& t : flat) sink.write(t.data->bytes().data(), t.data->bytes().size());
  });
  return file;
}

Record load_safetensors(const std::string& file, const std::vector<std::pair<std::string, std::string>>& key_remaps) {
  formats::MappedFile mapped(file);
  auto bytes = mapped.bytes();
  uint64_t n = 0;
  if (bytes.size() < 8)
    throw FormatError("load", file + ": truncated (" + std::to_string(bytes.size()) + " bytes, no header)");
  std::memcpy(&n, bytes.data(), 8);
  if (n > kMaxHeader || n > bytes.size() - 8)
    throw FormatError("load", file + ": header length " + std::to_string(n) + " exceeds the file or the 100 MB limit");
  const auto header_size = static_cast<size_t>(n);  // fits: at most the file's size
  auto* text = reinterpret_cast<const char*>(bytes.data() + 8);
  json header = formats::parse_json_bounded<json>({text, header_size}, "load", file + " (header)");
  if (!header.is_object()) throw FormatError("load", file + ": the header is not a JSON object");
  auto data = bytes.subspan(8 + header_size);
  std::vector<Entry> entries;
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") continue;
    entries.push_back(parse_entry(item.key(), item.value(), data.size(), file));
  }
  auto by_offset = entries;
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  uint64_t expected = 0;
  for (const auto& e : by_offset) {
    if (e.begin != expected)
      throw FormatError("load", file + ": '" + e.key + "' starts at byte " + std::to_string(e.begin) + ", expected " +
                                    std::to_string(expected) + " (overlapping or gapped data)");
    expected = e.end;
  }
  if (expected != data.size())
    throw FormatError("load", file + ": " + std::to_string(data.size() - expected) +
                                  " data bytes belong to no tensor (truncated or corrupt)");
  formats::DottedRecordBuilder root(file, key_remaps);
  for (const auto& e : entries) {
    auto bytes = data.subspan(e.begin, e.end - e.begin);
    root.insert(e.key, Record(formats::tensor_from_file(bytes, e.shape, e.dtype, file, e.key)));
  }
  return root.take();
}

}  // namespace scorch::detail
