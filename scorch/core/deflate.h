#pragma once
// Deflate's bound, shared by every reader of compressed files (gzip records, IDX, PNG).
#include <cstddef>

namespace scorch {

/// Deflate's largest possible expansion: no compressed byte inflates to more than this many bytes.
inline constexpr size_t kMaxDeflateRatio = 1032;

}  // namespace scorch
