#pragma once
// How a run is shown. The learner calls a renderer from its own thread: start, then per iteration
// update(split, entries, progress), end_epoch after each split's epoch, and finish at the end.
// CliRenderer prints plain lines; TuiRenderer (tui.h) is the ncurses dashboard.
#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "scorch/train/control.h"
#include "scorch/train/metric.h"
#include "scorch/train/store.h"

namespace scorch::train {

/// Where the run is: epochs from 1, items within the current epoch.
struct TrainingProgress {
  size_t epoch = 1, num_epochs = 1;
  size_t iteration = 0;
  size_t items_processed = 0, items_total = 0;
};

/// What a renderer is told once at the start.
struct RunInfo {
  size_t num_epochs = 1;
  size_t first_epoch = 1;                 // > 1 when resuming
  Interrupter interrupter;                // the quit key stops this
  const MetricsStore* history = nullptr;  // values of earlier epochs (resume), read at start only
};

class MetricsRenderer {
 public:
  virtual ~MetricsRenderer() = default;
  virtual void start(const RunInfo& info) = 0;
  virtual void update(Split split, const std::vector<MetricEntry>& entries, const TrainingProgress& progress) = 0;
  virtual void end_epoch(Split split, size_t epoch, const MetricsStore& store) = 0;
  /// The run is over; summary is the text to leave on the screen (may be empty).
  virtual void finish(const std::string& summary) = 0;
};

/// Plain text: a progress line at most every `interval`, and one line per split per epoch.
class CliRenderer final : public MetricsRenderer {
 public:
  explicit CliRenderer(std::ostream& out, std::chrono::milliseconds interval = std::chrono::seconds(10));
  CliRenderer();
  void start(const RunInfo& info) override;
  void update(Split split, const std::vector<MetricEntry>& entries, const TrainingProgress& progress) override;
  void end_epoch(Split split, size_t epoch, const MetricsStore& store) override;
  void finish(const std::string& summary) override;

 private:
  std::ostream& out_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point last_{};
  size_t num_epochs_ = 1;
  std::vector<MetricEntry> last_entries_;
};

/// The TUI on a terminal (stdout is a tty, TERM is set and not "dumb", SCORCH_RENDERER is not
/// "cli"); the CLI renderer otherwise.
std::shared_ptr<MetricsRenderer> default_renderer();

/// "1h02m03s" / "4m05s" / "6s".
std::string format_duration(double seconds);

}  // namespace scorch::train
