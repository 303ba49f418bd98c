// Zip entries through libzip (zip_archive.h): the archive is read from memory, entries by name.
#include "scorch/import/pytorch/zip_archive.h"

#include <zip.h>

#include <memory>

#include "scorch/core/error.h"

namespace scorch::pytorch::detail {

ZipArchive::ZipArchive(std::span<const std::byte> bytes, std::string source)
    : source_(std::move(source)), archive_size_(bytes.size()) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (src) zip_ = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!zip_) {
    std::string why = zip_error_strerror(&error);
    if (src) zip_source_free(src);
    zip_error_fini(&error);
    throw FormatError("load", source_ + ": not a readable zip archive (" + why + ")");
  }
  zip_error_fini(&error);
}

ZipArchive::~ZipArchive() {
  if (zip_) zip_discard(zip_);
}

std::vector<std::string> ZipArchive::names() const {
  std::vector<std::string> out;
  zip_int64_t n = zip_get_num_entries(zip_, 0);
  for (zip_int64_t i = 0; i < n; ++i)
    if (const char* name = zip_get_name(zip_, static_cast<zip_uint64_t>(i), 0)) out.emplace_back(name);
  return out;
}

bool ZipArchive::contains(const std::string& name) const { return zip_name_locate(zip_, name.c_str(), 0) >= 0; }

int64_t ZipArchive::index(const std::string& name) const {
  zip_int64_t i = zip_name_locate(zip_, name.c_str(), 0);
  if (i < 0) throw FormatError("load", source_ + ": the archive has no entry '" + name + "'");
  return i;
}

size_t ZipArchive::size(const std::string& name) const {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(zip_, static_cast<zip_uint64_t>(index(name)), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw FormatError("load", source_ + ": entry '" + name + "' has no readable size");
  if (!(st.valid & ZIP_STAT_COMP_METHOD) || st.comp_method != ZIP_CM_STORE)
    throw FormatError("load", source_ + ": entry '" + name + "' is compressed; torch.save stores its entries");
  if (st.size > archive_size_)
    throw FormatError("load", source_ + ": entry '" + name + "' claims " + std::to_string(st.size) +
                                  " bytes, more than the archive's " + std::to_string(archive_size_));
  return st.size;
}

std::vector<std::byte> ZipArchive::read(const std::string& name) const {
  size_t n = size(name);
  auto at = static_cast<zip_uint64_t>(index(name));
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(zip_fopen_index(zip_, at, 0), zip_fclose);
  if (!file)
    throw FormatError("load", source_ + ": entry '" + name + "' cannot be opened (" + zip_strerror(zip_) + ")");
  std::vector<std::byte> out(n);
  zip_int64_t got = n == 0 ? 0 : zip_fread(file.get(), out.data(), n);
  if (got < 0 || static_cast<size_t>(got) != n)
    throw FormatError("load", source_ + ": entry '" + name + "' is truncated (" + std::to_string(got < 0 ? 0 : got) +
                                  " of " + std::to_string(n) + " bytes)");
  return out;
}

}  // namespace scorch::pytorch::detail
