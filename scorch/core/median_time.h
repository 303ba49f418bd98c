#pragma once
// The median wall time of a function over repetitions: how Scorch's tools and standalone benchmarks time work.
#include <algorithm>
#include <chrono>
#include <vector>

namespace scorch {

/// Median milliseconds of reps (at least 1) runs of fn, after warm untimed runs.
template <class F> double median_ms(F&& fn, int reps, int warm = 1) {
  for (int i = 0; i < warm; ++i) fn();
  std::vector<double> times;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace scorch
