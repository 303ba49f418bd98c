#pragma once
// Internal to scorch/import/pytorch: the entries of a zip archive in memory (libzip), as torch.save writes them:
// stored, not compressed.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

struct zip;

namespace scorch::pytorch::detail {

class ZipArchive {
 public:
  /// Opens the archive in bytes (which must outlive it) with libzip's consistency checks; FormatError naming
  /// source when the bytes are not a readable zip.
  ZipArchive(std::span<const std::byte> bytes, std::string source);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  /// The entries' names, in the archive's order.
  std::vector<std::string> names() const;
  /// Whether an entry is called name.
  bool contains(const std::string& name) const;
  /// Entry name's bytes; FormatError when it is missing, compressed (torch.save stores), or shorter than its
  /// directory says. What it allocates is bounded by the archive's size.
  std::vector<std::byte> read(const std::string& name) const;
  /// Entry name's size in bytes, as its directory entry says (stored entries: at most the archive's size).
  size_t size(const std::string& name) const;
  size_t archive_size() const { return archive_size_; }
  const std::string& source() const { return source_; }

 private:
  int64_t index(const std::string& name) const;

  struct zip* zip_ = nullptr;
  std::string source_;
  size_t archive_size_ = 0;
};

}  // namespace scorch::pytorch::detail
