// Gzip compression and bounded inflation through zlib (byte_io.h's GzipSink and gunzip).
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "scorch/core/error.h"
#include "scorch/module/formats/byte_io.h"

namespace scorch::formats {

struct GzipSink::State {
  z_stream z{};
  std::vector<unsigned char> out = std::vector<unsigned char>(1 << 18);
};

GzipSink::GzipSink(ByteSink& next, int level, std::string path)
    : next_(next), path_(std::move(path)), state_(std::make_unique<State>()) {
  // Level 0 means Huffman coding alone: float weights have no repeats for LZ matching to find,
  // and it compresses them as well as level 6 at three times the speed.
  int strategy = level == 0 ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY;
  if (deflateInit2(&state_->z, level == 0 ? 1 : level, Z_DEFLATED, 15 + 16, 8, strategy) != Z_OK)
    throw IoError("save", path_ + ": cannot start gzip compression (level " + std::to_string(level) + ")");
}
GzipSink::~GzipSink() { deflateEnd(&state_->z); }

void GzipSink::pump(int flush) {
  z_stream& z = state_->z;
  int status;
  do {
    z.next_out = state_->out.data();
    z.avail_out = static_cast<uInt>(state_->out.size());
    status = deflate(&z, flush);
    if (status == Z_STREAM_ERROR) throw IoError("save", path_ + ": gzip compression failed");
    next_.write(state_->out.data(), state_->out.size() - z.avail_out);
  } while (z.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
}

void GzipSink::write(const void* data, size_t size) {
  auto* p = static_cast<const unsigned char*>(data);
  while (size > 0) {
    uInt chunk = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    state_->z.next_in = const_cast<unsigned char*>(p);
    state_->z.avail_in = chunk;
    pump(Z_NO_FLUSH);
    p += chunk;
    size -= chunk;
  }
}
void GzipSink::finish() {
  state_->z.avail_in = 0;
  pump(Z_FINISH);
  next_.finish();
}

namespace {
/// Inflated output kept as chunks (64 KiB doubling to 1 MiB), so growing never copies and a rejected stream holds
/// only what it produced.
class ChunkedOutput {
 public:
  static constexpr size_t kFirst = size_t{64} << 10, kLargest = size_t{1} << 20;
  std::span<unsigned char> next_chunk() {
    size_t size = chunks_.empty() ? kFirst : std::min(kLargest, 2 * chunks_.back().second);
    chunks_.emplace_back(std::unique_ptr<unsigned char[]>(new unsigned char[size]), size);  // not zeroed
    return {chunks_.back().first.get(), size};
  }
  /// Records that the last chunk holds n more bytes.
  void produced(size_t n) { size_ += n; }
  size_t size() const { return size_; }
  std::span<const std::byte> first(size_t n) const {
    return {reinterpret_cast<const std::byte*>(chunks_.front().first.get()), std::min(n, size_)};
  }
  /// The bytes in one vector; each chunk is freed once copied.
  std::vector<std::byte> assemble() {
    std::vector<std::byte> out(size_);
    size_t at = 0;
    for (auto& [chunk, size] : chunks_) {
      size_t n = std::min(size, size_ - at);
      if (n > 0) std::memcpy(out.data() + at, chunk.get(), n);  // out.data() may be null when empty
      at += n;
      chunk.reset();
    }
    return out;
  }

 private:
  std::vector<std::pair<std::unique_ptr<unsigned char[]>, size_t>> chunks_;
  size_t size_ = 0;
};

/// A zlib inflate stream over one gzip buffer, naming source and the compressed offset in its errors.
class Inflater {
 public:
  Inflater(std::span<const std::byte> bytes, const std::string& source) : bytes_(bytes), source_(source) {
    if (inflateInit2(&z_, 15 + 32) != Z_OK) throw FormatError("load", source + ": cannot start gzip decompression");
    feed();
  }
  ~Inflater() { inflateEnd(&z_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  [[noreturn]] void fail(const std::string& why) const {
    throw FormatError("load",
                      source_ + ": gzip data " + why + " at compressed byte " + std::to_string(fed_ - z_.avail_in));
  }
  /// Inflates into out; returns the bytes written, 0 at the end of the last member.
  size_t step(std::span<unsigned char> out);

 private:
  void feed() {
    size_t n = std::min<size_t>(bytes_.size() - fed_, 1u << 30);
    z_.next_in = reinterpret_cast<unsigned char*>(const_cast<std::byte*>(bytes_.data() + fed_));
    z_.avail_in = static_cast<uInt>(n);
    fed_ += n;
  }
  std::span<const std::byte> bytes_;
  const std::string& source_;
  z_stream z_{};
  size_t fed_ = 0;  // bytes handed to zlib so far
  bool done_ = false;
};

size_t Inflater::step(std::span<unsigned char> out) {
  while (!done_) {
    z_.next_out = out.data();
    z_.avail_out = static_cast<uInt>(out.size());
    int status = inflate(&z_, Z_NO_FLUSH);
    size_t written = out.size() - z_.avail_out;
    if (status == Z_STREAM_END) {
      if (z_.avail_in == 0 && fed_ == bytes_.size()) done_ = true;
      else inflateReset(&z_);  // another gzip member follows
    } else if (status == Z_BUF_ERROR && z_.avail_in == 0 && fed_ == bytes_.size()) {
      fail("truncated");
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      fail(std::string("corrupt (") + (z_.msg ? z_.msg : "inflate error") + ")");
    }
    if (z_.avail_in == 0 && fed_ < bytes_.size()) feed();
    if (written > 0) return written;
  }
  return 0;
}
}  // namespace

std::vector<std::byte> gunzip(std::span<const std::byte> bytes, const std::string& source, const InflateLimit& limit) {
  if (!is_gzip(bytes)) throw FormatError("load", source + ": not a gzip file");
  Inflater inflater(bytes, source);
  ChunkedOutput out;
  bool started = !limit.check_start;
  std::span<unsigned char> chunk;
  size_t used = 0;
  while (true) {
    if (used == chunk.size()) chunk = out.next_chunk(), used = 0;
    size_t n = inflater.step(chunk.subspan(used));
    if (n > limit.max_output - out.size())
      inflater.fail("inflates to more than " + std::to_string(limit.max_output) + " bytes, the limit" +
                    (limit.hint.empty() ? "" : " (" + limit.hint + ")"));
    used += n;
    out.produced(n);
    if (!started && (out.size() >= 64 || n == 0)) {
      started = true;
      limit.check_start(out.first(64));
    }
    if (n == 0) break;
  }
  return out.assemble();
}

}  // namespace scorch::formats
