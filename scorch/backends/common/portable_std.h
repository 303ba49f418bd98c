#pragma once
// The standard names the scalar functors use, as scorch::stdx, so one definition compiles three
// ways: host C++, nvcc device code (both: the C++ library) and NVRTC text for generated kernels
// (scorch/gen/scalar_ops_text.h), where no library headers exist: there, NVRTC's built-in math
// overloads and the few type traits below stand in.

/// Marks functions callable from CUDA device code too (nvcc and NVRTC compile them for the device).
#ifdef __CUDACC__
#define SCORCH_HD __host__ __device__
#else
#define SCORCH_HD
#endif

#ifndef __CUDACC_RTC__
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__cpp_lib_bit_cast)
namespace scorch {
namespace stdx = ::std;
}  // namespace scorch
#else  // a library without std::bit_cast (the libc++ 13 of Debian's emscripten): the compiler's builtin
namespace scorch::stdx {
using namespace ::std;
template <class To, class From> constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace scorch::stdx
#endif
#else
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

namespace scorch::stdx {
using ::abs, ::acos, ::acosh, ::asin, ::asinh, ::atan, ::atan2, ::atanh, ::ceil, ::cos, ::cosh, ::erf, ::exp;
using ::floor, ::fmod, ::isinf, ::log, ::log1p, ::nearbyint, ::pow, ::sin, ::sinh, ::sqrt, ::tan, ::tanh, ::trunc;

template <class A, class B> inline constexpr bool is_same_v = false;
template <class A> inline constexpr bool is_same_v<A, A> = true;
template <class T, class... Us> inline constexpr bool is_any_of_v = (is_same_v<T, Us> || ...);
template <class T> inline constexpr bool is_integral_v =
    is_any_of_v<T, bool, char, signed char, unsigned char, short, unsigned short, int, unsigned, long, unsigned long,
                long long, unsigned long long>;
template <class T> inline constexpr bool is_floating_point_v = is_any_of_v<T, float, double>;
template <class T> inline constexpr bool is_signed_v = (is_integral_v<T> || is_floating_point_v<T>)&&T(-1) < T(0);
template <class T> inline constexpr bool is_unsigned_v = is_integral_v<T> && !(T(-1) < T(0));

template <bool C, class A, class B> struct conditional { using type = A; };
template <class A, class B> struct conditional<false, A, B> { using type = B; };
template <bool C, class A, class B> using conditional_t = typename conditional<C, A, B>::type;

template <class T> struct make_unsigned { using type = T; };
template <> struct make_unsigned<char> { using type = unsigned char; };
template <> struct make_unsigned<signed char> { using type = unsigned char; };
template <> struct make_unsigned<short> { using type = unsigned short; };
template <> struct make_unsigned<int> { using type = unsigned; };
template <> struct make_unsigned<long> { using type = unsigned long; };
template <> struct make_unsigned<long long> { using type = unsigned long long; };
template <class T> using make_unsigned_t = typename make_unsigned<T>::type;

/// Integers only: the value bits, as `std::numeric_limits<T>::digits`.
template <class T> struct numeric_limits { static constexpr int digits = int(sizeof(T) * 8) - (T(-1) < T(0) ? 1 : 0); };
}  // namespace scorch::stdx
#endif
