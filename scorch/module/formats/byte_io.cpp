#include "scorch/module/formats/byte_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

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

/// Creates path's folder (and its parents) when missing; IoError naming the folder when that fails.
void create_folder_of(const std::string& path) {
  auto folder = std::filesystem::path(path).parent_path();
  std::error_code failed;
  if (folder.empty() || std::filesystem::is_directory(folder, failed)) return;
  std::filesystem::create_directories(folder, failed);
  if (failed)
    throw IoError("save", path + ": its folder " + folder.string() + " is missing and cannot be created (" +
                              failed.message() + ")");
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

// The writer's process id of an atomic_write temporary name ("NAME.tmp-PID-N"), or 0 when name is not one.
pid_t temporary_writer(const std::string& name) {
  auto at = name.rfind(".tmp-");
  if (at == std::string::npos) return 0;
  auto digits = [](std::string_view text) {
    return !text.empty() && text.size() < 12 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string_view rest = std::string_view(name).substr(at + 5);
  auto dash = rest.find('-');
  if (dash == std::string_view::npos || !digits(rest.substr(0, dash)) || !digits(rest.substr(dash + 1))) return 0;
  return static_cast<pid_t>(std::stol(std::string(rest.substr(0, dash))));
}

size_t remove_stale_temporaries(const std::string& folder, const std::string& prefix) {
  std::error_code failed;
  size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder.empty() ? "." : folder, failed)) {
    std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    pid_t writer = temporary_writer(name);
    if (writer <= 0 || writer == ::getpid() || ::kill(writer, 0) == 0 || errno != ESRCH) continue;
    if (std::filesystem::remove(entry.path(), failed)) ++removed;
  }
  return removed;
}

void atomic_write(const std::string& path, const std::function<void(ByteSink&)>& write) {
  create_folder_of(path);
  auto target = std::filesystem::path(path);
  remove_stale_temporaries(target.parent_path().string(), target.filename().string() + ".tmp-");
  std::string tmp = temporary_name(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError("save", path + ": cannot write in its folder: " + errno_text());
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

size_t default_inflate_limit(size_t compressed_size) {
  constexpr size_t kFloor = size_t{64} << 20, kRatio = 16;
  return compressed_size > kFloor / kRatio ? compressed_size * kRatio : kFloor;
}

}  // namespace scorch::formats
