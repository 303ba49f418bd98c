// GzipSink and gunzip for builds without zlib (the WebAssembly build): both say so and name the file.
#include "scorch/core/error.h"
#include "scorch/module/formats/byte_io.h"

namespace scorch::formats {

namespace {
const char* const kNoZlib = ": gzip needs zlib, which this build (WebAssembly) has not; use an uncompressed recorder";
}  // namespace

struct GzipSink::State {};

GzipSink::GzipSink(ByteSink& next, int, std::string path) : next_(next), path_(std::move(path)) {
  throw IoError("save", path_ + kNoZlib);
}
GzipSink::~GzipSink() = default;
void GzipSink::pump(int) {}
void GzipSink::write(const void*, size_t) {}
void GzipSink::finish() {}

std::vector<std::byte> gunzip(std::span<const std::byte>, const std::string& source, const InflateLimit&) {
  throw FormatError("load", source + kNoZlib);
}

}  // namespace scorch::formats
