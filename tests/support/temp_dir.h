#pragma once
// A fresh, empty folder under the system temp dir for one test, removed at destruction.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace scorch::testing {

/// An emptied folder under the system temp dir named scorch-<name>, kept after the test (its files can be looked at).
inline std::filesystem::path fresh_temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("scorch-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

class TempDir {
 public:
  explicit TempDir(const std::string& name = "test")
      : path_(std::filesystem::temp_directory_path() /
              ("scorch-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// The path of name inside the folder.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path path_;
};

}  // namespace scorch::testing
