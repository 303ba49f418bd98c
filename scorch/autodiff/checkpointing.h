#pragma once
// Gradient checkpointing strategies of Autodiff<B>, chosen at run time globally or per device.
// NoCheckpointing keeps what each op's backward needs. BalancedCheckpointing keeps the
// outputs of compute-bound ops (matmul, conv, ...) and recomputes memory-bound ops
// (elementwise, layout, reductions) during backward instead of keeping their outputs; every
// `segment`-th op of a memory-bound chain keeps its output so recomputation stays linear.
#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace scorch::autodiff {

/// Keep every saved tensor (the default).
struct NoCheckpointing {};
/// Recompute memory-bound ops in backward; a chain keeps one output per `segment` ops.
struct BalancedCheckpointing {
  size_t segment = 16;
};
/// One of the strategies.
using CheckpointingStrategy = std::variant<NoCheckpointing, BalancedCheckpointing>;

/// How an op is treated under checkpointing.
enum class Bound {
  Compute,  ///< expensive to redo: its inputs are kept
  Memory,   ///< cheap to redo: recomputed in backward under BalancedCheckpointing
};

/// The strategy table of one device type: a global default and per-device overrides.
template <class Device> class CheckpointingTable {
 public:
  static CheckpointingTable& instance() {
    static CheckpointingTable table;
    return table;
  }
  void set_global(CheckpointingStrategy s) {
    std::lock_guard lock(mutex_);
    global_ = s;
    refresh();
  }
  void set(const Device& device, CheckpointingStrategy s) {
    std::lock_guard lock(mutex_);
    for (auto& [d, strategy] : per_device_)
      if (d == device) {
        strategy = s;
        refresh();
        return;
      }
    per_device_.emplace_back(device, s);
    refresh();
  }
  /// Back to NoCheckpointing everywhere.
  void reset() {
    std::lock_guard lock(mutex_);
    global_ = NoCheckpointing{};
    per_device_.clear();
    refresh();
  }
  /// The segment length when device uses BalancedCheckpointing, else nullopt. Lock-free when
  /// nothing was configured.
  std::optional<size_t> balanced_segment(const Device& device) const {
    if (!configured_.load(std::memory_order_acquire)) return std::nullopt;
    std::lock_guard lock(mutex_);
    const CheckpointingStrategy* s = &global_;
    for (const auto& [d, strategy] : per_device_)
      if (d == device) s = &strategy;
    if (auto* b = std::get_if<BalancedCheckpointing>(s)) return b->segment < 1 ? 1 : b->segment;
    return std::nullopt;
  }

 private:
  void refresh() {
    bool any = std::holds_alternative<BalancedCheckpointing>(global_);
    for (const auto& entry : per_device_) any = any || std::holds_alternative<BalancedCheckpointing>(entry.second);
    configured_.store(any, std::memory_order_release);
  }
  mutable std::mutex mutex_;
  CheckpointingStrategy global_ = NoCheckpointing{};
  std::vector<std::pair<Device, CheckpointingStrategy>> per_device_;
  std::atomic<bool> configured_{false};
};

}  // namespace scorch::autodiff
