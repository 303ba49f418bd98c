#pragma once
// Shapes of the micro runtime: up to four dims, held by value (no heap).
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "scorch/micro/config.h"

namespace scorch::micro {
inline namespace SCORCH_MICRO_POLICY {

/// A tensor's dims, outermost first; rank() ≤ kMaxRank.
class Shape {
 public:
  static constexpr uint32_t kMaxRank = 4;
  constexpr Shape() = default;
  /// The dims in order; more than kMaxRank leaves an empty shape with valid() false.
  constexpr Shape(std::initializer_list<uint32_t> dims) {
    if (dims.size() > kMaxRank) {
      rank_ = kMaxRank + 1;
      return;
    }
    for (uint32_t d : dims) dims_[rank_++] = d;
  }
  constexpr bool valid() const { return rank_ <= kMaxRank; }
  constexpr uint32_t rank() const { return valid() ? rank_ : 0; }
  constexpr uint32_t operator[](uint32_t i) const { return dims_[i]; }
  /// The last dim (1 for a scalar).
  constexpr uint32_t last() const { return rank() ? dims_[rank() - 1] : 1; }
  /// The product of the dims in 64 bits, saturated at UINT64_MAX (what a size check needs on a 32-bit core).
  constexpr uint64_t count() const {
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank(); ++i) {
      if (dims_[i] == 0) return 0;
      n = n > UINT64_MAX / dims_[i] ? UINT64_MAX : n * dims_[i];
    }
    return n;
  }
  /// The product of the dims (a graph checks that its buffers' sizes fit first).
  constexpr size_t numel() const {
    size_t n = 1;
    for (uint32_t i = 0; i < rank(); ++i) n *= dims_[i];
    return n;
  }
  /// The product of the dims before the last (the rows a last-dim op visits).
  constexpr size_t rows() const {
    size_t n = 1;
    for (uint32_t i = 0; i + 1 < rank(); ++i) n *= dims_[i];
    return n;
  }
  constexpr void set(uint32_t i, uint32_t d) { dims_[i] = d; }
  /// This shape with one more trailing dim d (a no-op on a full shape).
  constexpr Shape append(uint32_t d) const {
    Shape s = *this;
    if (s.rank_ < kMaxRank) s.dims_[s.rank_++] = d;
    return s;
  }
  friend constexpr bool operator==(const Shape& a, const Shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (uint32_t i = 0; i < a.rank(); ++i)
      if (a.dims_[i] != b.dims_[i]) return false;
    return true;
  }

 private:
  uint32_t rank_ = 0;
  uint32_t dims_[kMaxRank] = {};
};

}  // namespace SCORCH_MICRO_POLICY
}  // namespace scorch::micro
