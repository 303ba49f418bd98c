#pragma once
// The terminal dashboard (ncurses, drawn by its own thread ten times a second): a plot of one
// numeric metric (training and validation curves; ←/→ pick the metric, ↑/↓ switch between the
// current epoch and the whole run), every metric's latest value, the progress of the epoch and
// of the run with an ETA. `q` stops the run through the interrupter (the learner stops after the
// current iteration; checkpoints already written stay whole); Ctrl-C does the same.
#include <memory>

#include "scorch/train/renderer.h"

namespace scorch::train {

class TuiRenderer final : public MetricsRenderer {
 public:
  TuiRenderer();
  ~TuiRenderer() override;
  void start(const RunInfo& info) override;
  void update(Split split, const std::vector<MetricEntry>& entries, const TrainingProgress& progress) override;
  void end_epoch(Split split, size_t epoch, const MetricsStore& store) override;
  /// Closes the screen and prints summary on the normal terminal.
  void finish(const std::string& summary) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace scorch::train
