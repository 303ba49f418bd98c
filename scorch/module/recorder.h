#pragma once
// Recorders: a Record to bytes and back, in a format and a precision. File recorders add their
// extension to the path, write through a temporary file renamed on success (a failed or
// interrupted save leaves the old file), and check everything on load.
//
//   model.save_file("artifacts/model", CompactRecorder{});               // artifacts/model.mpk.gz
//   auto m = model.load_file("artifacts/model", CompactRecorder{}, device);
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scorch/module/formats/codec.h"
#include "scorch/module/record.h"

namespace scorch {

/// Floats as f16, ints as i16 (where every value fits).
struct HalfPrecisionSettings {
  static constexpr formats::Precision precision = formats::Precision::Half;
};
/// Floats as f32, ints as i32 (where every value fits).
struct FullPrecisionSettings {
  static constexpr formats::Precision precision = formats::Precision::Full;
};
/// Floats as f64, ints as i64.
struct DoublePrecisionSettings {
  static constexpr formats::Precision precision = formats::Precision::Double;
};

namespace detail {
/// path with extension appended unless it already ends with it.
std::string with_extension(const std::string& path, std::string_view extension);
/// Saves record to file atomically; returns file.
std::string save_record_file(const Record& record, const std::string& file, formats::Format format, bool gzip,
                             int level, formats::Precision precision);
/// Loads a record file, naming the file (and, when it looks like another recorder's file, that recorder) in errors;
/// a gzip file may inflate to at most max_inflated bytes (0: formats::default_inflate_limit of its size).
Record load_record_file(const std::string& file, formats::Format format, bool gzip, size_t max_inflated = 0);
}  // namespace detail

/// A file recorder: Format F, optional gzip, precision settings S.
template <formats::Format F, bool Gzip, class S> struct FileRecorder {
  /// Gzip recorders: 0 (the default) = Huffman coding only, 3x faster than zlib's levels and as small
  /// on float weights; 1 … 9 = zlib's levels, which pay off only for repetitive data.
  int compression_level = 0;
  /// Gzip recorders: the most bytes a file may inflate to on load, so a small file cannot claim gigabytes
  /// (a gzip bomb); 0 (the default) = 16 times the file's size, at least 64 MiB. Raise it for files of zeros.
  size_t max_inflated_bytes = 0;

  /// The file extension this recorder adds ("mpk", "bin.gz", ...).
  static std::string extension() {
    std::string base = F == formats::Format::NamedMpk ? "mpk" : F == formats::Format::Bin ? "bin" : "json";
    return Gzip ? base + ".gz" : base;
  }
  /// The file a path maps to.
  std::string file_path(const std::string& path) const { return detail::with_extension(path, extension()); }
  /// Writes record to path + extension; returns the file written.
  std::string record(const Record& record, const std::string& path) const {
    return detail::save_record_file(record, file_path(path), F, Gzip, compression_level, S::precision);
  }
  /// Reads the record at path + extension.
  Record load(const std::string& path) const {
    return detail::load_record_file(file_path(path), F, Gzip, max_inflated_bytes);
  }
};

/// Named MessagePack files (.mpk).
template <class S = FullPrecisionSettings> using NamedMpkFileRecorder =
    FileRecorder<formats::Format::NamedMpk, false, S>;
/// Named MessagePack, gzip-compressed (.mpk.gz).
template <class S = FullPrecisionSettings> using NamedMpkGzFileRecorder =
    FileRecorder<formats::Format::NamedMpk, true, S>;
/// The compact binary format (.bin): the fastest to save and load.
template <class S = FullPrecisionSettings> using BinFileRecorder = FileRecorder<formats::Format::Bin, false, S>;
/// The compact binary format, gzip-compressed (.bin.gz).
template <class S = FullPrecisionSettings> using BinGzFileRecorder = FileRecorder<formats::Format::Bin, true, S>;
/// JSON, gzip-compressed (.json.gz).
template <class S = FullPrecisionSettings> using JsonGzFileRecorder = FileRecorder<formats::Format::Json, true, S>;
/// Indented JSON (.json), for reading weights by eye.
template <class S = FullPrecisionSettings> using PrettyJsonFileRecorder =
    FileRecorder<formats::Format::PrettyJson, false, S>;
/// The default: named MessagePack in full precision.
template <class S = FullPrecisionSettings> using DefaultFileRecorder = NamedMpkFileRecorder<S>;
using DefaultRecorder = NamedMpkFileRecorder<FullPrecisionSettings>;
/// The book's checkpoint recorder: named MessagePack, gzip, half precision.
using CompactRecorder = NamedMpkGzFileRecorder<HalfPrecisionSettings>;
/// Compressed but full precision.
using SensitiveCompactRecorder = NamedMpkGzFileRecorder<FullPrecisionSettings>;

/// The binary format in memory, to embed a model in a program (load the bytes BinFileRecorder wrote).
template <class S = FullPrecisionSettings> struct BinBytesRecorder {
  /// The record's bytes.
  std::vector<std::byte> record(const Record& record) const {
    std::vector<std::byte> out;
    formats::VectorSink sink(out);
    formats::encode(record, S::precision, formats::Format::Bin, sink);
    return out;
  }
  /// Reads bytes produced by record() or by BinFileRecorder (same precision or not).
  Record load(std::span<const std::byte> bytes) const {
    return formats::decode(bytes, formats::Format::Bin, "<bytes>");
  }
  Record load(std::span<const unsigned char> bytes) const { return load(std::as_bytes(bytes)); }
};

/// Safetensors files (.safetensors): tensors only, flat dotted keys, readable by Hugging Face's library.
template <class S = FullPrecisionSettings> struct SafetensorsFileRecorder {
  /// (pattern, replacement) pairs applied in order to every key on load (std::regex_replace, $1 style).
  std::vector<std::pair<std::string, std::string>> key_remaps;

  /// Renames keys on load, e.g. with_key_remap("conv\\.(.*)", "$1") turns "conv.conv1.weight" into "conv1.weight".
  SafetensorsFileRecorder with_key_remap(std::string pattern, std::string replacement) const {
    auto copy = *this;
    copy.key_remaps.emplace_back(std::move(pattern), std::move(replacement));
    return copy;
  }
  static std::string extension() { return "safetensors"; }
  std::string file_path(const std::string& path) const { return detail::with_extension(path, extension()); }
  std::string record(const Record& record, const std::string& path) const;
  Record load(const std::string& path) const;
};

namespace detail {
/// Writes record's tensors (flattened to dotted keys) as a safetensors file.
std::string save_safetensors(const Record& record, const std::string& file, formats::Precision precision);
/// Reads a safetensors file into a nested record, renaming keys first.
Record load_safetensors(const std::string& file, const std::vector<std::pair<std::string, std::string>>& key_remaps);
}  // namespace detail

template <class S> std::string SafetensorsFileRecorder<S>::record(const Record& record, const std::string& path) const {
  return detail::save_safetensors(record, file_path(path), S::precision);
}
template <class S> Record SafetensorsFileRecorder<S>::load(const std::string& path) const {
  return detail::load_safetensors(file_path(path), key_remaps);
}

}  // namespace scorch
