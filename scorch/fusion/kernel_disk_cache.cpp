// Fused kernels cached on disk (see kernel_disk_cache.h).
#include "scorch/fusion/kernel_disk_cache.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace scorch::fusion {
namespace {

constexpr char kMagic[8] = {'S', 'C', 'K', 'E', 'R', 'N', '1', '\n'};

/// FNV-1a, 64 bits: stable across builds and machines.
uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << std::hex << v;
  return s.str();
}

}  // namespace

KernelDiskCache KernelDiskCache::from_environment() {
  if (const char* dir = std::getenv("SCORCH_CACHE_DIR"); dir && *dir) return KernelDiskCache(dir);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return KernelDiskCache(std::filesystem::path(xdg) / "scorch");
  const char* home = std::getenv("HOME");
  return KernelDiskCache(std::filesystem::path(home && *home ? home : "/tmp") / ".cache" / "scorch");
}

std::filesystem::path KernelDiskCache::file_for(const std::string& key) const {
  return folder_ / ("kernel-" + hex(fnv1a(key)) + ".bin");
}

std::optional<std::string> KernelDiskCache::load(const std::string& key) const {
  std::ifstream in(file_for(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // magic, key hash, code size, code checksum, code
  const size_t header = sizeof(kMagic) + 3 * sizeof(uint64_t);
  if (bytes.size() < header || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return std::nullopt;
  uint64_t fields[3];
  std::memcpy(fields, bytes.data() + sizeof(kMagic), sizeof(fields));
  std::string code = bytes.substr(header);
  if (fields[0] != fnv1a(key) || fields[1] != code.size() || fields[2] != fnv1a(code)) return std::nullopt;
  return code;
}

bool KernelDiskCache::store(const std::string& key, const std::string& code) const {
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  auto target = file_for(key);
  auto temporary = target;
  temporary += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    uint64_t fields[3] = {fnv1a(key), code.size(), fnv1a(code)};
    out.write(kMagic, sizeof(kMagic));
    out.write(reinterpret_cast<const char*>(fields), sizeof(fields));
    out.write(code.data(), static_cast<std::streamsize>(code.size()));
    if (!out.flush()) {
      std::filesystem::remove(temporary, ec);
      return false;
    }
  }
  std::filesystem::rename(temporary, target, ec);
  if (ec) std::filesystem::remove(temporary, ec);
  return !ec;
}

}  // namespace scorch::fusion
