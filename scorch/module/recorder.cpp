#include "scorch/module/recorder.h"

#include <cstring>

#include "scorch/core/error.h"

namespace scorch::detail {

namespace {
using formats::Format;

enum class Looks { Gzip, Bin, Json, Mpk, Unknown };

/// A guess at which kind of file bytes are, for hints in errors.
Looks sniff(std::span<const std::byte> bytes) {
  if (formats::is_gzip(bytes)) return Looks::Gzip;
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), "SCORCHB1", 8) == 0) return Looks::Bin;
  if (!bytes.empty() && bytes[0] == std::byte{'{'}) return Looks::Json;
  if (!bytes.empty() && (static_cast<uint8_t>(bytes[0]) & 0xf0) == 0x80) return Looks::Mpk;
  return Looks::Unknown;
}

std::string describe_looks(Looks looks) {
  switch (looks) {
    case Looks::Gzip: return "a gzip file (saved by a *Gz recorder)";
    case Looks::Bin: return "a binary record (BinFileRecorder)";
    case Looks::Json: return "a JSON record (PrettyJsonFileRecorder)";
    case Looks::Mpk: return "a MessagePack record (NamedMpkFileRecorder)";
    case Looks::Unknown: break;
  }
  return "";
}

Looks expected_looks(Format format) {
  return format == Format::Bin ? Looks::Bin : format == Format::NamedMpk ? Looks::Mpk : Looks::Json;
}

/// Whether the first inflated bytes can start a record of format (JSON may start with whitespace).
bool starts_like(std::span<const std::byte> start, Format format) {
  if (format == Format::Json || format == Format::PrettyJson) {
    for (std::byte b : start)
      if (b != std::byte{' '} && b != std::byte{'\n'} && b != std::byte{'\r'} && b != std::byte{'\t'})
        return b == std::byte{'{'};
    return true;
  }
  return start.empty() || sniff(start) == expected_looks(format);
}

/// The bytes of a gzip record file, inflated within the limit (rejecting data that is not a record of format early).
std::vector<std::byte> inflate_record(std::span<const std::byte> bytes, const std::string& file, Format format,
                                      size_t max_inflated) {
  formats::InflateLimit limit;
  limit.max_output = max_inflated ? max_inflated : formats::default_inflate_limit(bytes.size());
  limit.hint = max_inflated ? "the recorder's max_inflated_bytes"
                            : "16 times the file's size; set the recorder's max_inflated_bytes to load larger data";
  limit.check_start = [&](std::span<const std::byte> start) {
    if (starts_like(start, format)) return;
    std::string seen = describe_looks(sniff(start));
    throw FormatError("load", file + ": the inflated data is not " + describe_looks(expected_looks(format)) +
                                  (seen.empty() ? "" : "; it looks like " + seen));
  };
  return formats::gunzip(bytes, file, limit);
}
}  // namespace

std::string with_extension(const std::string& path, std::string_view extension) {
  std::string suffix = "." + std::string(extension);
  if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return path;
  return path + suffix;
}

std::string save_record_file(const Record& record, const std::string& file, Format format, bool gzip, int level,
                             formats::Precision precision) {
  if (gzip && (level < 0 || level > 9))
    throw ValueError("save", file + ": compression level " + std::to_string(level) + " is outside 0..9");
  formats::atomic_write(file, [&](formats::ByteSink& sink) {
    if (!gzip) return formats::encode(record, precision, format, sink);
    formats::GzipSink zipped(sink, level, file);
    formats::encode(record, precision, format, zipped);
    zipped.finish();
  });
  return file;
}

Record load_record_file(const std::string& file, Format format, bool gzip, size_t max_inflated) {
  formats::MappedFile mapped(file);
  std::span<const std::byte> bytes = mapped.bytes();
  std::vector<std::byte> inflated;
  if (gzip) {
    if (!formats::is_gzip(bytes)) {
      std::string seen = describe_looks(sniff(bytes));
      throw FormatError(
          "load", file + ": not a gzip file" +
                      (seen.empty() ? "" : "; it looks like " + seen + ": load it with the recorder that saved it"));
    }
    inflated = inflate_record(bytes, file, format, max_inflated);
    bytes = inflated;
  }
  try {
    return formats::decode(bytes, format, file);
  } catch (const FormatError& e) {
    Looks looks = sniff(bytes);
    if (looks == Looks::Unknown || looks == expected_looks(format)) throw;
    throw FormatError("load", std::string(e.what()).substr(7) + " (the file looks like " + describe_looks(looks) +
                                  ": load it with the recorder that saved it)");
  }
}

}  // namespace scorch::detail
