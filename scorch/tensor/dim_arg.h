#pragma once
// DimArg: one entry of a dims list written as a braced literal ({batch, -1, 28}); accepts any
// integer type without narrowing errors, and -1 / 0 for reshape's infer / keep.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace scorch {

/// A signed dim value built from any integer.
struct DimArg {
  int64_t value;
  template <std::integral I> constexpr DimArg(I v) : value(static_cast<int64_t>(v)) {}
};

/// The values of a DimArg list.
template <size_t N> std::vector<int64_t> dim_values(const DimArg (&dims)[N]) {
  std::vector<int64_t> out;
  for (const DimArg& d : dims) out.push_back(d.value);
  return out;
}

}  // namespace scorch
