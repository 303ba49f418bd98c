#pragma once
// scorch::bit_cast: std::bit_cast where the standard library has it (libstdc++), the compiler's builtin where it
// does not (the libc++ 13 of Debian's emscripten); the same bits either way.
#include <bit>
#include <type_traits>

namespace scorch {

/// The bits of from read as a To of the same size.
template <class To, class From> constexpr To bit_cast(const From& from) noexcept
    requires(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>) {
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<To>(from);
#else
  return __builtin_bit_cast(To, from);
#endif
}

}  // namespace scorch
