#include "scorch/data/sources/idx.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "scorch/core/deflate.h"
#include "scorch/core/error.h"
#include "scorch/core/shape.h"

namespace scorch::data {

namespace {
constexpr size_t kChunk = size_t{1} << 16;

/// A file read through zlib's gz* functions: gzip (one or more members) is inflated as it is read, other files pass
/// through; nothing is trusted from the gzip trailer, and reads stop where the caller says.
class GzStream {
 public:
  GzStream(const std::string& path, const char* op) : path_(path), op_(op) {
    std::error_code ec;
    file_size_ = std::filesystem::file_size(path, ec);
    gz_ = ec ? nullptr : gzopen(path.c_str(), "rb");
    if (!gz_) throw IoError(op, "cannot open " + path);
    gzbuffer(gz_, kChunk);
  }
  ~GzStream() {
    if (gz_) gzclose(gz_);
  }
  GzStream(const GzStream&) = delete;
  GzStream& operator=(const GzStream&) = delete;

  /// Whether the file is gzip (known after the first read).
  bool compressed() const { return gzdirect(gz_) == 0; }
  size_t file_size() const { return file_size_; }
  size_t offset() const { return offset_; }
  /// Reads up to n bytes into out; returns how many (fewer only at the end); FormatError when the gzip data is corrupt.
  size_t read(uint8_t* out, size_t n);
  /// Closes the stream; FormatError when the gzip data ended inside a member (truncated).
  void close();

 private:
  std::string path_;
  const char* op_;
  gzFile gz_ = nullptr;
  size_t file_size_ = 0, offset_ = 0;
};

size_t GzStream::read(uint8_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    int got = gzread(gz_, out + done, static_cast<unsigned>(std::min(n - done, kChunk)));
    if (got < 0) {
      int code = 0;
      std::string message = gzerror(gz_, &code);
      throw FormatError(
          op_, path_ + ": gzip data is corrupt after " + std::to_string(offset_ + done) + " bytes (" + message + ")");
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  offset_ += done;
  return done;
}

void GzStream::close() {
  bool clean_end = gzclose(gz_) == Z_OK;
  gz_ = nullptr;
  if (!clean_end)
    throw FormatError(op_, path_ + ": gzip stream is truncated after " + std::to_string(offset_) + " bytes");
}

/// The header's dims and the byte count they declare; FormatError naming path and the byte for a bad header.
struct IdxHeader {
  std::vector<size_t> dims;
  size_t header_bytes = 0, count = 0;
};

IdxHeader read_idx_header(GzStream& in, const std::string& path) {
  uint8_t magic[4] = {};
  if (in.read(magic, 4) < 4 || magic[0] != 0 || magic[1] != 0)
    throw FormatError("read_idx", path + ": not an IDX file (bad magic number at byte 0)");
  if (magic[2] != 0x08)
    throw FormatError("read_idx",
                      path + ": element type 0x" + std::to_string(magic[2]) + " at byte 2 is not unsigned byte (0x08)");
  IdxHeader h;
  h.header_bytes = 4 + 4 * size_t{magic[3]};
  std::vector<uint8_t> raw(4 * size_t{magic[3]});
  if (in.read(raw.data(), raw.size()) < raw.size())
    throw FormatError("read_idx", path + ": truncated in the dims (file has " + std::to_string(in.offset()) +
                                      " bytes, header needs " + std::to_string(h.header_bytes) + ")");
  for (size_t d = 0; d < magic[3]; ++d) {
    const uint8_t* p = raw.data() + 4 * d;
    h.dims.push_back((size_t(p[0]) << 24) | (size_t(p[1]) << 16) | (size_t(p[2]) << 8) | size_t(p[3]));
  }
  auto count = checked_product(h.dims);
  if (!count) throw FormatError("read_idx", path + ": the dims at byte 4 overflow the element count");
  h.count = *count;
  return h;
}

/// The most bytes a gzip file of compressed_size may inflate to by default: 16 times its size, at least 64 MiB
/// (the records' rule, formats::default_inflate_limit).
size_t default_inflate_limit(size_t compressed_size) {
  constexpr size_t kFloor = size_t{64} << 20, kRatio = 16;
  return compressed_size > kFloor / kRatio ? compressed_size * kRatio : kFloor;
}

/// Throws unless the file's size can back count values after the header: raw files hold them, gzip files may
/// inflate to at most max_inflated bytes (0: default_inflate_limit) and never more than deflate can produce.
void check_backed(const GzStream& in, const IdxHeader& h, const std::string& path, size_t max_inflated) {
  size_t payload = in.file_size() > h.header_bytes ? in.file_size() - h.header_bytes : 0;
  if (!in.compressed() && payload < h.count)
    throw FormatError("read_idx", path + ": truncated at byte " + std::to_string(in.file_size()) + ": dims need " +
                                      std::to_string(h.count) + " values after byte " + std::to_string(h.header_bytes));
  if (in.compressed() && h.count / kMaxDeflateRatio > in.file_size())
    throw FormatError("read_idx", path + ": dims at byte 4 declare " + std::to_string(h.count) + " values, more than " +
                                      std::to_string(in.file_size()) + " bytes of gzip data can hold");
  size_t limit = max_inflated ? max_inflated : default_inflate_limit(in.file_size());
  if (in.compressed() && h.count > limit - std::min(limit, h.header_bytes))
    throw FormatError("read_idx", path + ": dims at byte 4 declare " + std::to_string(h.count) +
                                      " values, more than the limit of " + std::to_string(limit) + " bytes for " +
                                      std::to_string(in.file_size()) + " bytes of gzip data (" +
                                      (max_inflated ? "max_inflated" : "16 times the file's size; pass max_inflated") +
                                      " to read_idx to load it)");
}
}  // namespace

std::vector<uint8_t> read_maybe_gzip(const std::string& path, size_t max_bytes) {
  GzStream in(path, "read_idx");
  std::vector<uint8_t> out;
  uint8_t buffer[kChunk];
  while (size_t n = in.read(buffer, sizeof buffer)) {
    if (n > max_bytes - out.size())
      throw FormatError("read_idx", path + ": inflates to more than " + std::to_string(max_bytes) + " bytes");
    out.insert(out.end(), buffer, buffer + n);
  }
  in.close();
  return out;
}

IdxArray read_idx(const std::string& path, size_t max_inflated) {
  GzStream in(path, "read_idx");
  IdxHeader h = read_idx_header(in, path);
  check_backed(in, h, path, max_inflated);
  IdxArray out;
  out.dims = std::move(h.dims);
  out.values.reserve(std::min(h.count, size_t{16} << 20));  // grows with the data actually read beyond this
  uint8_t buffer[kChunk];
  while (out.values.size() < h.count) {
    size_t n = in.read(buffer, std::min(kChunk, h.count - out.values.size()));
    if (n == 0)
      throw FormatError("read_idx", path + ": truncated at byte " + std::to_string(in.offset()) + ": dims need " +
                                        std::to_string(h.count) + " values after byte " +
                                        std::to_string(h.header_bytes));
    out.values.insert(out.values.end(), buffer, buffer + n);
  }
  if (in.read(buffer, 1) != 0)
    throw FormatError("read_idx", path + ": unexpected data at byte " + std::to_string(in.offset() - 1) +
                                      ", after the " + std::to_string(h.count) + " values the dims declare");
  in.close();
  return out;
}

}  // namespace scorch::data
