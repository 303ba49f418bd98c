#pragma once
// The untyped half of the learner: epochs, interruption, metric logging, the store, rendering,
// checkpoint policies, early stopping, plots and the summary. The typed Learner (learner.h)
// supplies the steps through TrainingHooks, so this code is compiled once, in the library.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scorch/train/checkpoint.h"
#include "scorch/train/control.h"
#include "scorch/train/logger.h"
#include "scorch/train/metric.h"
#include "scorch/train/renderer.h"
#include "scorch/train/store.h"

namespace scorch::train {

/// Everything LearnerBuilder collects that does not depend on the model's types.
struct LearnerOptions {
  std::string artifact_dir;
  size_t num_epochs = 1;
  std::optional<size_t> checkpoint;  // resume after this epoch
  size_t grads_accumulation = 1;
  std::vector<std::shared_ptr<MetricBase>> metrics[2];   // train, valid
  std::vector<std::shared_ptr<MetricLogger>> loggers;    // empty: a FileMetricLogger on artifact_dir
  std::shared_ptr<MetricsRenderer> renderer;             // null: default_renderer()
  std::optional<AnyRecorder> checkpoint_recorder;        // set by with_file_checkpointer
  std::shared_ptr<CheckpointingStrategy> checkpointing;  // null: default_checkpointing_strategy()
  std::shared_ptr<EarlyStoppingStrategy> early_stopping;
  Interrupter interrupter;
  bool summary = false;
  bool plots = true;
  bool stop_on_signals = true;  // Ctrl-C stops the run cleanly instead of killing it
  bool grad_scaler = false;     // mixed precision with loss scaling: its state is checkpointed too
};

/// One iteration's outcome, reported by the typed learner.
struct IterationResult {
  std::vector<MetricEntry> entries;
  size_t items_processed = 0, items_total = 0;
};

/// The model's state at the end of an epoch, as records.
struct CheckpointRecords {
  Record model, optim, scheduler;
  std::optional<Record> grad_scaler;  // with LearnerOptions::grad_scaler
};

/// What the typed learner does for the loop.
class TrainingHooks {
 public:
  virtual ~TrainingHooks() = default;
  /// Starts an epoch of a split (train: epoch's shuffle; valid: the inference copy of the model).
  virtual void start_epoch(Split split, size_t epoch) = 0;
  /// Runs one iteration; nullopt when the epoch has no batch left.
  virtual std::optional<IterationResult> iterate(Split split, size_t epoch, size_t iteration) = 0;
  /// Ends a training epoch (applies gradients still being accumulated).
  virtual void end_train_epoch() = 0;
  virtual CheckpointRecords records() const = 0;
  virtual void restore(const CheckpointRecords& records) = 0;
  /// A one-line description of the model for the summary.
  virtual std::string describe() const = 0;
};

/// How a fit ended.
struct FitReport {
  size_t epochs_completed = 0;  // the last epoch whose training and validation finished
  bool interrupted = false;
  bool stopped_early = false;
  std::string reason;
};

class TrainingLoop {
 public:
  explicit TrainingLoop(LearnerOptions options);
  ~TrainingLoop();
  FitReport run(TrainingHooks& hooks);
  const MetricsStore& store() const { return store_; }

 private:
  bool run_split(TrainingHooks& hooks, Split split, size_t epoch);
  void checkpoint(TrainingHooks& hooks, size_t epoch);
  void resume(TrainingHooks& hooks, size_t epoch);
  LearnerOptions options_;
  MetricsStore store_;
  std::unique_ptr<ExperimentLog> log_;
  std::unique_ptr<SignalStopGuard> guard_;
  std::unique_ptr<FileCheckpointer> checkpointers_[4];  // model, optim, scheduler, grad scaler
};

}  // namespace scorch::train
