#pragma once
// Stopping a run: the Interrupter (a shared flag the learner checks between iterations, set by
// the dashboard's quit key, by Ctrl-C while a run is active, or by user code) and early stopping.
#include <atomic>
#include <csignal>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "scorch/train/store.h"

namespace scorch::train {

/// A stop request shared between the learner, the renderer and user code; thread-safe.
class Interrupter {
 public:
  void stop(const std::string& reason = "stopped");
  void reset();
  bool should_stop() const { return state_->flag.load(); }
  std::string reason() const;
  /// The flag itself (for a signal handler, which may only store to it).
  std::atomic<bool>* flag() const { return &state_->flag; }

 private:
  struct State {
    std::atomic<bool> flag{false};
    mutable std::mutex mutex;
    std::string reason;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

/// While alive, SIGINT (Ctrl-C) and SIGTERM stop the interrupter instead of killing the process;
/// the previous handlers come back on destruction.
class SignalStopGuard {
 public:
  explicit SignalStopGuard(Interrupter interrupter);
  ~SignalStopGuard();
  SignalStopGuard(const SignalStopGuard&) = delete;
  SignalStopGuard& operator=(const SignalStopGuard&) = delete;
  /// Called from a polling loop: forwards a signal that arrived to the interrupter.
  void poll();

 private:
  Interrupter interrupter_;
  struct sigaction old_int_ {
  }, old_term_{};
};

class EarlyStoppingStrategy {
 public:
  virtual ~EarlyStoppingStrategy() = default;
  /// Whether training should stop after epoch (called once per epoch, in order).
  virtual bool should_stop(size_t epoch, const MetricsStore& store) = 0;
};

/// Stops when the metric has not improved for n epochs.
struct NoImprovementSince {
  size_t n_epochs;
};

class MetricEarlyStoppingStrategy final : public EarlyStoppingStrategy {
 public:
  MetricEarlyStoppingStrategy(std::string metric, Aggregate aggregate, Direction direction, Split split,
                              NoImprovementSince condition);
  /// No stop before epoch `epochs` is done.
  MetricEarlyStoppingStrategy& with_warmup_epochs(std::optional<size_t> epochs) {
    warmup_ = epochs;
    return *this;
  }
  bool should_stop(size_t epoch, const MetricsStore& store) override;

 private:
  std::string metric_;
  Aggregate aggregate_;
  Direction direction_;
  Split split_;
  NoImprovementSince condition_;
  std::optional<size_t> warmup_;
  std::optional<std::pair<size_t, double>> best_;
};

}  // namespace scorch::train
