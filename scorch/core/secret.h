#pragma once
// Comparing secrets (tokens) without leaking where they differ through timing.
#include <algorithm>
#include <string_view>

namespace scorch {

/// a == b, in a time that depends on a's length only (not on where or whether they differ).
inline bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % std::max<size_t>(b.size(), 1)]);
  return diff == 0;
}

}  // namespace scorch
