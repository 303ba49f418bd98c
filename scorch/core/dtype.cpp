#include "scorch/core/dtype.h"

#include <array>
#include <string>

#include "scorch/core/error.h"

namespace scorch {
namespace {
constexpr std::array<std::string_view, 10> kNames = {"f64", "f32", "f16", "bf16", "i64",
                                                     "i32", "i16", "i8",  "u8",   "bool"};
constexpr std::array<size_t, 10> kSizes = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};
}  // namespace

std::string_view dtype_name(DType dtype) { return kNames[static_cast<size_t>(dtype)]; }

size_t dtype_size(DType dtype) { return kSizes[static_cast<size_t>(dtype)]; }

DType dtype_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<DType>(i);
  throw DTypeError("dtype", "unknown dtype name '" + std::string(name) + "'");
}

}  // namespace scorch
