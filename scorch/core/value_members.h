#pragma once
// A value class's copies, moves and destructor declared in the class (SCORCH_VALUE_MEMBERS) and defaulted in its .cpp
// (SCORCH_DEFAULT_VALUE_MEMBERS): implicit ones are compiled in every file that copies the class, with the copies of
// its maps, variants and vectors under them (docs/design.md §4). Each use ends with a semicolon.
#define SCORCH_VALUE_MEMBERS(T)     \
  T();                              \
  T(const T& other);                \
  T(T&& other) noexcept;            \
  T& operator=(const T& other);     \
  T& operator=(T&& other) noexcept; \
  ~T()
#define SCORCH_DEFAULT_VALUE_MEMBERS(T)          \
  T::T() = default;                              \
  T::T(const T& other) = default;                \
  T::T(T&& other) noexcept = default;            \
  T& T::operator=(const T& other) = default;     \
  T& T::operator=(T&& other) noexcept = default; \
  T::~T() = default
