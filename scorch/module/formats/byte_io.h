#pragma once
// Byte sinks and sources for recorders: atomic file writes (temporary file + rename), gzip,
// in-memory buffers, whole-file reads, and the XXH3 checksum the binary formats append.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scorch/core/deflate.h"

namespace scorch::formats {

/// Somewhere to write bytes; write throws IoError on failure.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const void* data, size_t size) = 0;
  /// Flushes buffered bytes downstream (before the sink is finished).
  virtual void finish() {}
};

/// Appends to a vector (BinBytesRecorder, tests).
class VectorSink final : public ByteSink {
 public:
  explicit VectorSink(std::vector<std::byte>& out) : out_(out) {}
  void write(const void* data, size_t size) override;

 private:
  std::vector<std::byte>& out_;
};

/// Passes bytes on and keeps a running XXH3-64 of them.
class HashingSink final : public ByteSink {
 public:
  explicit HashingSink(ByteSink& next);
  ~HashingSink() override;
  void write(const void* data, size_t size) override;
  uint64_t digest() const;
  /// Bytes written so far.
  uint64_t offset() const { return offset_; }

 private:
  ByteSink& next_;
  void* state_;
  uint64_t offset_ = 0;
};

/// Gzip-compresses into next: level 0 = Huffman coding only (fastest; best for float weights), 1 … 9 = zlib levels.
class GzipSink final : public ByteSink {
 public:
  GzipSink(ByteSink& next, int level, std::string path);
  ~GzipSink() override;
  void write(const void* data, size_t size) override;
  void finish() override;

 private:
  void pump(int flush);
  ByteSink& next_;
  std::string path_;
  struct State;
  std::unique_ptr<State> state_;
};

/// XXH3-64 of bytes.
uint64_t checksum(std::span<const std::byte> bytes);

/// Writes path through a temporary file in the same folder, synced and renamed over path on
/// success; on any error the temporary file is removed and path keeps its old contents.
/// Temporary files of writers that died (a kill -9 mid-write) are removed first: see remove_stale_temporaries.
void atomic_write(const std::string& path, const std::function<void(ByteSink&)>& write);

/// Removes the temporary files atomic_write left in folder (`NAME.tmp-PID-N`, only those starting with prefix)
/// whose writing process no longer runs; a live writer's (this process's included) are kept. Returns how many went.
size_t remove_stale_temporaries(const std::string& folder, const std::string& prefix = "");

/// A file's bytes, mapped read-only (or empty for an empty file); throws IoError naming path.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

/// How much gunzip may produce and what the inflated data must start with.
struct InflateLimit {
  /// Most output bytes; inflating past them is an error (the gzip trailer's size is never trusted).
  size_t max_output = 0;
  /// Says, in the error, how to raise max_output ("set the recorder's max_inflated_bytes").
  std::string hint;
  /// Called once on the first bytes produced (up to 64); throws to reject data that is not the expected format.
  std::function<void(std::span<const std::byte>)> check_start;
};

/// The default output limit for compressed bytes: 16 times their size, at least 64 MiB.
size_t default_inflate_limit(size_t compressed_size);

/// Inflates gzip bytes (one or more members) within limit; throws FormatError naming source and the compressed
/// offset when corrupt, truncated, or larger than limit.max_output. Peak memory is the output plus 1 MiB.
std::vector<std::byte> gunzip(std::span<const std::byte> bytes, const std::string& source, const InflateLimit& limit);

/// True when bytes start with the gzip magic.
bool is_gzip(std::span<const std::byte> bytes);

}  // namespace scorch::formats
