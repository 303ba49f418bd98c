#pragma once
// IDX files (the MNIST format), raw or gzip-compressed: a magic number giving the element type
// and rank, big-endian dims, then the values.
#include <cstdint>
#include <string>
#include <vector>

namespace scorch::data {

/// The unsigned-byte contents of an IDX file and its dims.
struct IdxArray {
  std::vector<size_t> dims;
  std::vector<uint8_t> values;
};

/// Reads an IDX file of unsigned bytes (gzip or raw, detected from the first bytes), streaming: the dims are checked
/// for overflow and against the file's size before anything is allocated, and no more is inflated than they declare.
/// A gzip file may declare at most max_inflated bytes (0: 16 times its size, at least 64 MiB), so a small file
/// cannot make it inflate gigabytes. Throws IoError when the file cannot be read and FormatError (naming the file
/// and byte offset) when it is not IDX, not unsigned bytes, truncated, over the limit, or longer than its dims say.
IdxArray read_idx(const std::string& path, size_t max_inflated = 0);

/// The whole file, decompressed when it starts with the gzip magic; throws IoError/FormatError, also when it
/// inflates to more than max_bytes.
std::vector<uint8_t> read_maybe_gzip(const std::string& path, size_t max_bytes = SIZE_MAX);

}  // namespace scorch::data
