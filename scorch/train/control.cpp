#include "scorch/train/control.h"

#include "scorch/core/error.h"

namespace scorch::train {
namespace {
volatile std::sig_atomic_t g_signal_seen = 0;
std::atomic<std::atomic<bool>*> g_flag{nullptr};  // the active interrupter's flag

/// Only async-signal-safe work: two lock-free stores. poll() fills in the reason.
void on_signal(int) {
  g_signal_seen = 1;
  if (std::atomic<bool>* flag = g_flag.load()) flag->store(true);
}
}  // namespace

void Interrupter::stop(const std::string& reason) {
  std::lock_guard lock(state_->mutex);
  if (state_->reason.empty()) state_->reason = reason;
  state_->flag.store(true);
}

void Interrupter::reset() {
  std::lock_guard lock(state_->mutex);
  state_->reason.clear();
  state_->flag.store(false);
}

std::string Interrupter::reason() const {
  std::lock_guard lock(state_->mutex);
  return state_->reason;
}

SignalStopGuard::SignalStopGuard(Interrupter interrupter) : interrupter_(std::move(interrupter)) {
  g_signal_seen = 0;
  g_flag.store(interrupter_.flag());
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

SignalStopGuard::~SignalStopGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  g_flag.store(nullptr);
}

void SignalStopGuard::poll() {
  if (g_signal_seen) interrupter_.stop("interrupted by a signal");
}

MetricEarlyStoppingStrategy::MetricEarlyStoppingStrategy(std::string metric, Aggregate aggregate, Direction direction,
                                                         Split split, NoImprovementSince condition)
    : metric_(std::move(metric)), aggregate_(aggregate), direction_(direction), split_(split), condition_(condition) {
  if (condition.n_epochs == 0) throw ValueError("MetricEarlyStoppingStrategy", "n_epochs must be at least 1");
}

bool MetricEarlyStoppingStrategy::should_stop(size_t epoch, const MetricsStore& store) {
  auto value = store.epoch_value(split_, metric_, epoch, aggregate_);
  if (!value) return false;
  if (!best_ || (direction_ == Direction::Lowest ? *value < best_->second : *value > best_->second))
    best_ = {epoch, *value};
  if (warmup_ && epoch <= *warmup_) return false;
  return epoch - best_->first >= condition_.n_epochs;
}

}  // namespace scorch::train
