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

/// Reads an IDX file of unsigned bytes (gzip or raw, detected from the first bytes). Throws
/// IoError when the file cannot be read and FormatError (naming the file and byte offset) when
/// it is not IDX, not unsigned bytes, or truncated.
IdxArray read_idx(const std::string& path);

/// The whole file, decompressed when it starts with the gzip magic; throws IoError/FormatError.
std::vector<uint8_t> read_maybe_gzip(const std::string& path);

}  // namespace scorch::data
