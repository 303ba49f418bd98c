#include "scorch/module/formats/codec.h"

#include <algorithm>
#include <limits>

#include "scorch/core/error.h"

namespace scorch::formats {

namespace {
DType float_dtype(Precision p) {
  return p == Precision::Half ? DType::F16 : p == Precision::Full ? DType::F32 : DType::F64;
}
DType int_dtype(Precision p) {
  return p == Precision::Half ? DType::I16 : p == Precision::Full ? DType::I32 : DType::I64;
}

bool is_signed_int(DType d) { return d == DType::I64 || d == DType::I32 || d == DType::I16 || d == DType::I8; }

/// Whether every value of an int tensor fits target (so narrowing loses nothing).
bool ints_fit(const TensorData& data, DType target) {
  if (dtype_size(target) >= dtype_size(data.dtype())) return true;
  int64_t lo = target == DType::I16 ? std::numeric_limits<int16_t>::min() : std::numeric_limits<int32_t>::min();
  int64_t hi = target == DType::I16 ? std::numeric_limits<int16_t>::max() : std::numeric_limits<int32_t>::max();
  for (size_t i = 0; i < data.num_elements(); ++i) {
    int64_t v = data.scalar_at(i).to_int();
    if (v < lo || v > hi) return false;
  }
  return true;
}
}  // namespace

std::string_view precision_name(Precision p) {
  return p == Precision::Half ? "half" : p == Precision::Full ? "full" : "double";
}

const TensorData& stored_form(const TensorData& data, Precision precision, TensorData& scratch) {
  DType target = data.dtype();
  if (is_float(data.dtype())) target = float_dtype(precision);
  if (is_signed_int(data.dtype()) && ints_fit(data, int_dtype(precision))) target = int_dtype(precision);
  if (target == data.dtype()) return data;
  scratch = data.convert(target);
  return scratch;
}

Shape shape_from_file(std::span<const size_t> dims, const std::string& source, const std::string& key) {
  auto fail = [&](const std::string& why) { throw FormatError("load", source + ": '" + key + "': " + why); };
  if (dims.size() > kMaxRank)
    fail("tensor rank " + std::to_string(dims.size()) + " exceeds the maximum " + std::to_string(kMaxRank));
  Shape shape(dims);
  if (!shape.checked_num_elements()) fail("tensor shape " + shape.to_string() + " overflows the element count");
  return shape;
}

size_t tensor_bytes_from_file(const Shape& shape, DType dtype, const std::string& source, const std::string& key) {
  auto bytes = shape.checked_num_bytes(dtype_size(dtype));
  if (!bytes)
    throw FormatError("load", source + ": '" + key + "': tensor " + std::string(dtype_name(dtype)) + shape.to_string() +
                                  " overflows the byte count");
  return *bytes;
}

TensorData tensor_from_file(std::span<const std::byte> bytes, const Shape& shape, DType dtype,
                            const std::string& source, const std::string& key) {
  size_t expected = tensor_bytes_from_file(shape, dtype, source, key);
  if (bytes.size() != expected)
    throw FormatError("load", source + ": '" + key + "': tensor " + std::string(dtype_name(dtype)) + shape.to_string() +
                                  " needs " + std::to_string(expected) + " bytes, found " +
                                  std::to_string(bytes.size()));
  if (dtype == DType::Bool)
    for (size_t i = 0; i < bytes.size(); ++i)
      if (static_cast<uint8_t>(bytes[i]) > 1)
        throw FormatError("load", source + ": '" + key + "': bool value " + std::to_string(i) + " is byte " +
                                      std::to_string(static_cast<uint8_t>(bytes[i])) + " (must be 0 or 1)");
  return TensorData::from_bytes(std::vector<std::byte>(bytes.begin(), bytes.end()), shape, dtype);
}

Record envelope_metadata(Precision precision) {
  return Record::map()
      .set("format", "scorch-record")
      .set("version", 1)
      .set("precision", std::string(precision_name(precision)))
      .set("float", std::string(dtype_name(float_dtype(precision))))
      .set("int", std::string(dtype_name(int_dtype(precision))));
}

Record take_item(Record envelope, const std::string& source) {
  const Record* metadata = envelope.find("metadata");
  if (!metadata) throw FormatError("load", source + ": not a Scorch record (no metadata)");
  const Record* format = metadata->find("format");
  if (!format || format->kind() != RecordKind::String || format->as_string() != "scorch-record")
    throw FormatError(
        "load", source + ": not a Scorch record (metadata.format is " + (format ? describe(*format) : "missing") + ")");
  const Record* version = metadata->find("version");
  if (!version || version->kind() != RecordKind::Int || version->as_int() < 1 || version->as_int() > 1)
    throw FormatError("load", source + ": unsupported record version " + (version ? describe(*version) : "(missing)") +
                                  "; this build reads version 1");
  Record* item = envelope.find_mut("item");
  if (!item) throw FormatError("load", source + ": the record has no item");
  return std::move(*item);
}

void encode(const Record& item, Precision precision, Format format, ByteSink& sink) {
  Record metadata = envelope_metadata(precision);
  switch (format) {
    case Format::NamedMpk: return encode_mpk(metadata, item, precision, sink);
    case Format::Bin: return encode_bin(metadata, item, precision, sink);
    case Format::Json: return encode_json(metadata, item, precision, false, sink);
    case Format::PrettyJson: return encode_json(metadata, item, precision, true, sink);
  }
}

Record decode(std::span<const std::byte> bytes, Format format, const std::string& source) {
  switch (format) {
    case Format::NamedMpk: return decode_mpk(bytes, source);
    case Format::Bin: return decode_bin(bytes, source);
    case Format::Json:
    case Format::PrettyJson: return decode_json(bytes, source);
  }
  throw FormatError("load", source + ": unknown format");
}

}  // namespace scorch::formats
