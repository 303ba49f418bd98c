#pragma once
// Record codecs: the on-disk formats of the recorders (named MessagePack, compact binary,
// JSON) and the precision a record's tensors are stored in. Every file is an envelope
// {metadata: {format, version, precision}, item: record}; binary formats end with a checksum.
#include <span>
#include <string>
#include <string_view>

#include "scorch/module/formats/byte_io.h"
#include "scorch/module/record.h"

namespace scorch::formats {

/// How tensors are stored: floats as f16/f32/f64, ints as i16/i32/i64 (only when every value fits).
enum class Precision : uint8_t { Half, Full, Double };
/// "half", "full" or "double".
std::string_view precision_name(Precision precision);
/// data in the precision's stored dtype; returns data itself when it already is, else a converted copy in scratch.
const TensorData& stored_form(const TensorData& data, Precision precision, TensorData& scratch);

/// The serialization formats.
enum class Format : uint8_t { NamedMpk, Bin, Json, PrettyJson };

/// Writes the envelope of item to sink in format, tensors in precision.
void encode(const Record& item, Precision precision, Format format, ByteSink& sink);
/// Reads an envelope's item from bytes; every error is a FormatError naming source and the key.
Record decode(std::span<const std::byte> bytes, Format format, const std::string& source);

// Checks on tensors read from files, shared by the codecs and safetensors; errors are FormatError
// "[load] source: 'key': ...".
/// A shape from dims read from a file: rank at most kMaxRank and an element count that does not overflow.
Shape shape_from_file(std::span<const size_t> dims, const std::string& source, const std::string& key);
/// Bytes a tensor of shape and dtype takes; throws when the count overflows.
size_t tensor_bytes_from_file(const Shape& shape, DType dtype, const std::string& source, const std::string& key);
/// A copy of bytes as a tensor: their count must match shape and dtype, and bool bytes must be 0 or 1.
TensorData tensor_from_file(std::span<const std::byte> bytes, const Shape& shape, DType dtype,
                            const std::string& source, const std::string& key);

// The envelope's metadata and its check, shared by the codecs.
/// {format: "scorch-record", version: 1, precision, float, int}.
Record envelope_metadata(Precision precision);
/// The item of a decoded envelope; throws FormatError unless its metadata names a Scorch record of a version this build
/// reads.
Record take_item(Record envelope, const std::string& source);
/// The reserved key that marks a map as a tensor in the self-describing formats.
inline constexpr std::string_view kTensorKey = "__tensor__";

// Per-format entry points (codec_*.cpp).
void encode_mpk(const Record& metadata, const Record& item, Precision precision, ByteSink& sink);
Record decode_mpk(std::span<const std::byte> bytes, const std::string& source);
void encode_bin(const Record& metadata, const Record& item, Precision precision, ByteSink& sink);
Record decode_bin(std::span<const std::byte> bytes, const std::string& source);
void encode_json(const Record& metadata, const Record& item, Precision precision, bool pretty, ByteSink& sink);
Record decode_json(std::span<const std::byte> bytes, const std::string& source);
/// A record as JSON text, without the envelope (configs).
std::string to_json_text(const Record& record, bool pretty, Precision precision = Precision::Full);
/// Parses JSON text without an envelope; errors name source and the byte.
Record from_json_text(std::span<const std::byte> bytes, const std::string& source);

}  // namespace scorch::formats
