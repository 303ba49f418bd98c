#pragma once
// DimArg: one entry of a dims list written as a braced literal ({batch, -1, 28}); accepts any
// integer type without narrowing errors, and -1 / 0 for reshape's infer / keep. Only a signed 0
// (a literal) means "keep": an unsigned value (a size_t computed from a shape) is an exact size, so
// internal reshapes of zero-size tensors never go through the keep rule.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace scorch {

/// A signed dim value built from any integer.
struct DimArg {
  int64_t value;
  /// Built from an unsigned integer: a size, never reshape's "keep".
  bool is_size;
  template <std::integral I> constexpr DimArg(I v) : value(static_cast<int64_t>(v)), is_size(std::is_unsigned_v<I>) {}
};

/// reshape's marker for "keep the source dim" (a signed 0 in a DimArg list).
inline constexpr int64_t kKeepDim = INT64_MIN;

/// The values of a DimArg list.
template <size_t N> std::vector<int64_t> dim_values(const DimArg (&dims)[N]) {
  std::vector<int64_t> out;
  for (const DimArg& d : dims) out.push_back(d.value);
  return out;
}

/// The values of a reshape's DimArg list, with kKeepDim for each signed 0.
template <size_t N> std::vector<int64_t> reshape_values(const DimArg (&dims)[N]) {
  std::vector<int64_t> out;
  for (const DimArg& d : dims) out.push_back(d.value == 0 && !d.is_size ? kKeepDim : d.value);
  return out;
}

}  // namespace scorch
