#include "scorch/data/sources/idx.h"

#include <zlib.h>

#include <fstream>
#include <iterator>

#include "scorch/core/error.h"

namespace scorch::data {

std::vector<uint8_t> read_maybe_gzip(const std::string& path) {
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw IoError("read_idx", "cannot open " + path);
  std::vector<uint8_t> raw((std::istreambuf_iterator<char>(probe)), std::istreambuf_iterator<char>());
  if (raw.size() < 2 || raw[0] != 0x1f || raw[1] != 0x8b) return raw;
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throw IoError("read_idx", "cannot open " + path);
  std::vector<uint8_t> out;
  uint8_t buffer[1 << 16];
  for (;;) {
    int n = gzread(gz, buffer, sizeof(buffer));
    if (n < 0) {
      int code = 0;
      std::string message = gzerror(gz, &code);
      gzclose(gz);
      throw FormatError(
          "read_idx", path + ": gzip data is corrupt after " + std::to_string(out.size()) + " bytes (" + message + ")");
    }
    if (n == 0) break;
    out.insert(out.end(), buffer, buffer + n);
  }
  bool clean_end = gzclose(gz) == Z_OK;
  if (!clean_end)
    throw FormatError("read_idx", path + ": gzip stream is truncated after " + std::to_string(out.size()) + " bytes");
  return out;
}

IdxArray read_idx(const std::string& path) {
  std::vector<uint8_t> bytes = read_maybe_gzip(path);
  if (bytes.size() < 4 || bytes[0] != 0 || bytes[1] != 0)
    throw FormatError("read_idx", path + ": not an IDX file (bad magic number at byte 0)");
  if (bytes[2] != 0x08)
    throw FormatError("read_idx",
                      path + ": element type 0x" + std::to_string(bytes[2]) + " at byte 2 is not unsigned byte (0x08)");
  size_t rank = bytes[3], header = 4 + 4 * rank;
  if (bytes.size() < header)
    throw FormatError("read_idx", path + ": truncated in the dims (file has " + std::to_string(bytes.size()) +
                                      " bytes, header needs " + std::to_string(header) + ")");
  IdxArray out;
  size_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const uint8_t* p = bytes.data() + 4 + 4 * d;
    size_t dim = (size_t(p[0]) << 24) | (size_t(p[1]) << 16) | (size_t(p[2]) << 8) | size_t(p[3]);
    out.dims.push_back(dim);
    count *= dim;
  }
  if (bytes.size() - header < count)
    throw FormatError("read_idx", path + ": truncated at byte " + std::to_string(bytes.size()) + ": dims need " +
                                      std::to_string(count) + " values after byte " + std::to_string(header));
  out.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header),
                    bytes.begin() + static_cast<std::ptrdiff_t>(header + count));
  return out;
}

}  // namespace scorch::data
