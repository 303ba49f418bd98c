#include "scorch/module/formats/byte_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "scorch/core/error.h"

namespace scorch::formats {

namespace {
std::string errno_text() { return std::strerror(errno); }

/// Buffered writes to a file descriptor.
class FdSink final : public ByteSink {
 public:
  FdSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) { buffer_.reserve(kBuffer); }
  void write(const void* data, size_t size) override {
    if (size >= kBuffer) {
      finish();
      write_all(data, size);
      return;
    }
    if (buffer_.size() + size > kBuffer) finish();
    auto* p = static_cast<const std::byte*>(data);
    buffer_.insert(buffer_.end(), p, p + size);
  }
  void finish() override {
    write_all(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

 private:
  static constexpr size_t kBuffer = 1 << 20;
  void write_all(const void* data, size_t size) {
    auto* p = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = ::write(fd_, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw IoError("save", path_ + ": write failed: " + errno_text());
      p += n;
      size -= static_cast<size_t>(n);
    }
  }
  int fd_;
  std::string path_;
  std::vector<std::byte> buffer_;
};

std::string temporary_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

void sync_folder(const std::string& path) {
  auto folder = std::filesystem::path(path).parent_path();
  int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}
}  // namespace

void VectorSink::write(const void* data, size_t size) {
  auto* p = static_cast<const std::byte*>(data);
  out_.insert(out_.end(), p, p + size);
}

HashingSink::HashingSink(ByteSink& next) : next_(next), state_(XXH3_createState()) {
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}
HashingSink::~HashingSink() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void HashingSink::write(const void* data, size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, size);
  offset_ += size;
  next_.write(data, size);
}
uint64_t HashingSink::digest() const { return XXH3_64bits_digest(static_cast<XXH3_state_t*>(state_)); }

uint64_t checksum(std::span<const std::byte> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

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

void atomic_write(const std::string& path, const std::function<void(ByteSink&)>& write) {
  std::string tmp = temporary_name(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError("save", path + ": cannot create " + tmp + ": " + errno_text());
  try {
    FdSink sink(fd, path);
    write(sink);
    sink.finish();
    if (::fsync(fd) != 0) throw IoError("save", path + ": fsync failed: " + errno_text());
    if (::close(fd) != 0) {
      fd = -1;
      throw IoError("save", path + ": close failed: " + errno_text());
    }
    fd = -1;
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      throw IoError("save", path + ": rename from " + tmp + " failed: " + errno_text());
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  sync_folder(path);
}

MappedFile::MappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError("load", path + ": cannot open: " + errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw IoError("load", path + ": not a regular file");
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw IoError("load", path + ": cannot map: " + errno_text());
    }
    ::madvise(p, size_, MADV_SEQUENTIAL | MADV_WILLNEED);
    data_ = static_cast<const std::byte*>(p);
  }
  ::close(fd);
}
MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

bool is_gzip(std::span<const std::byte> b) {
  return b.size() >= 2 && b[0] == std::byte{0x1f} && b[1] == std::byte{0x8b};
}

std::vector<std::byte> gunzip(std::span<const std::byte> bytes, const std::string& source) {
  if (!is_gzip(bytes)) throw FormatError("load", source + ": not a gzip file");
  std::vector<std::byte> out;
  if (bytes.size() >= 18) {  // the trailer's ISIZE (size mod 2^32) as a first guess
    uint32_t isize;
    std::memcpy(&isize, bytes.data() + bytes.size() - 4, 4);
    out.reserve(isize);
  }
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw FormatError("load", source + ": cannot start gzip decompression");
  size_t fed = 0;  // bytes handed to zlib so far
  auto feed = [&]() {
    size_t n = std::min<size_t>(bytes.size() - fed, 1u << 30);
    z.next_in = reinterpret_cast<unsigned char*>(const_cast<std::byte*>(bytes.data() + fed));
    z.avail_in = static_cast<uInt>(n);
    fed += n;
  };
  auto fail = [&](const std::string& why) {
    size_t at = fed - z.avail_in;
    inflateEnd(&z);
    throw FormatError("load", source + ": gzip data " + why + " at compressed byte " + std::to_string(at));
  };
  feed();
  std::vector<unsigned char> chunk(1 << 20);
  while (true) {
    z.next_out = chunk.data();
    z.avail_out = static_cast<uInt>(chunk.size());
    int status = inflate(&z, Z_NO_FLUSH);
    auto* produced = reinterpret_cast<std::byte*>(chunk.data());
    out.insert(out.end(), produced, produced + (chunk.size() - z.avail_out));
    if (status == Z_STREAM_END) {
      if (z.avail_in == 0 && fed == bytes.size()) break;
      inflateReset(&z);  // another gzip member follows
      continue;
    }
    if (status == Z_BUF_ERROR && z.avail_in == 0 && fed == bytes.size()) fail("truncated");
    if (status != Z_OK && status != Z_BUF_ERROR)
      fail(std::string("corrupt (") + (z.msg ? z.msg : "inflate error") + ")");
    if (z.avail_in == 0 && fed < bytes.size()) feed();
  }
  inflateEnd(&z);
  return out;
}

}  // namespace scorch::formats
