// Greedy-by-size arena placement (arena_plan.h).
#include "scorch/graph/arena_plan.h"

#include <algorithm>
#include <numeric>

namespace scorch::graph {

ArenaPlan plan_arena(const std::vector<BufferLife>& buffers, size_t alignment) {
  auto round_up = [&](size_t n) { return (n + alignment - 1) / alignment * alignment; };
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });
  ArenaPlan plan{std::vector<size_t>(buffers.size(), 0), 0};
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferLife& b = buffers[i];
    // The placed buffers alive with b, by offset: b goes in the first gap that holds it.
    std::vector<size_t> live;
    for (size_t j : placed)
      if (buffers[j].first <= b.last && b.first <= buffers[j].last) live.push_back(j);
    std::sort(live.begin(), live.end(), [&](size_t x, size_t y) { return plan.offsets[x] < plan.offsets[y]; });
    size_t offset = 0;
    for (size_t j : live) {
      if (plan.offsets[j] >= offset + round_up(b.bytes)) break;
      offset = std::max(offset, round_up(plan.offsets[j] + buffers[j].bytes));
    }
    plan.offsets[i] = offset;
    plan.bytes = std::max(plan.bytes, round_up(offset + b.bytes));
    placed.push_back(i);
  }
  return plan;
}

}  // namespace scorch::graph
