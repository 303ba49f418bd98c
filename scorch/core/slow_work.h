#pragma once
// Progress lines for slow one-time work a user would otherwise wait through in silence (kernel and pipeline
// compiles on first use): stderr, one line once the total passes a threshold, then one per further interval.
#include <functional>
#include <mutex>
#include <string>

namespace scorch {

/// Totals the time of one kind of one-time work and says so on a sink (stderr by default) when it adds up.
class SlowWorkNotice {
 public:
  using Sink = std::function<void(const std::string&)>;
  /// who: the op-style prefix ("vulkan"); what: the work in the plural ("compute pipelines compiled").
  SlowWorkNotice(std::string who, std::string what, double first_after_s = 2.0, double every_s = 30.0, Sink sink = {});
  /// Counts one piece of work that took seconds; prints a line when the total crosses the next threshold.
  void add(double seconds);
  /// Pieces counted and their total seconds.
  size_t count() const;
  double total_seconds() const;

 private:
  std::string who_, what_;
  double next_s_, every_s_;
  Sink sink_;
  mutable std::mutex mutex_;
  size_t count_ = 0;
  double total_s_ = 0;
  bool said_ = false;
};

}  // namespace scorch
