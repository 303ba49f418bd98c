#pragma once
// Compiled fused kernels on disk, so that a second process compiles nothing: one file per kernel under the cache
// folder (SCORCH_CACHE_DIR, else $XDG_CACHE_HOME/scorch, else ~/.cache/scorch), named by a hash of the kernel's
// key (its source and target). Files are written atomically (a temporary file renamed into place) and carry a
// checksum: a truncated or corrupt file reads as missing and is rewritten. Failures to write are ignored.
#include <filesystem>
#include <optional>
#include <string>

namespace scorch::fusion {

class KernelDiskCache {
 public:
  /// A cache in folder (created on first store).
  explicit KernelDiskCache(std::filesystem::path folder) : folder_(std::move(folder)) {}
  /// The cache in the folder the environment names.
  static KernelDiskCache from_environment();

  /// The code stored under key, or nullopt when absent, unreadable or corrupt.
  std::optional<std::string> load(const std::string& key) const;
  /// Stores code under key; false when it could not be written.
  bool store(const std::string& key, const std::string& code) const;
  /// The file that holds key's code.
  std::filesystem::path file_for(const std::string& key) const;

 private:
  std::filesystem::path folder_;
};

}  // namespace scorch::fusion
