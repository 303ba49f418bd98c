#pragma once
// Slice: what the user writes to cut one dim: a range with optional end and a step, or one index.
#include <cstdint>
#include <optional>

namespace scorch {

/// One dim's slice. Negative start/end count from the end; out-of-range bounds are clamped;
/// a negative step walks backwards; a single index keeps the dim with size 1.
struct Slice {
  int64_t start = 0;
  std::optional<int64_t> end;
  int64_t step = 1;

  /// The whole dim.
  Slice() = default;
  /// The single index i (the dim is kept, with size 1).
  Slice(int64_t i) : start(i), end(i == -1 ? std::nullopt : std::optional<int64_t>(i + 1)) {}
  /// [start, end) with the given step.
  Slice(int64_t start_, int64_t end_, int64_t step_ = 1) : start(start_), end(end_), step(step_) {}
  /// [start, end of dim) with the given step.
  static Slice from(int64_t start, int64_t step = 1) {
    Slice s;
    s.start = start;
    s.step = step;
    return s;
  }
  /// [0, end).
  static Slice to(int64_t end) { return Slice(0, end); }
  /// The whole dim with a step (e.g. -1 reverses it).
  static Slice all(int64_t step = 1) { return from(0, step); }
};

}  // namespace scorch
