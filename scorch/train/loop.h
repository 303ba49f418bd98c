#pragma once
// The untyped half of the learner: epochs, interruption, metric logging, the store, rendering,
// checkpoint policies, early stopping, plots and the summary. The typed Learner (learner.h)
// supplies the steps through TrainingHooks, so this code is compiled once, in the library.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scorch/core/value_members.h"
#include "scorch/distributed/process_group.h"
#include "scorch/distributed/reducer_options.h"
#include "scorch/train/checkpoint.h"
#include "scorch/train/control.h"
#include "scorch/train/logger.h"
#include "scorch/train/metric.h"
#include "scorch/train/renderer.h"
#include "scorch/train/store.h"

namespace scorch::train {

/// Everything LearnerBuilder collects that does not depend on the model's types.
struct LearnerOptions {
  SCORCH_VALUE_MEMBERS(LearnerOptions);  // defaulted in the .cpp

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
  // Data-parallel training: this process's group (null: one process). Metrics are combined across the ranks;
  // only rank 0 renders, logs, writes checkpoints and reads them back (then sends them to the others).
  std::shared_ptr<distributed::ProcessGroup> group;
  distributed::ReducerOptions reducer;
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
  /// Called once before the first epoch, after a resume (data-parallel: rank 0's state goes to every rank).
  virtual void start_run() {}
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
  /// Data-parallel: combines one iteration across the ranks (result's numeric entries become the ranks' weighted
  /// means); false once no rank has a batch left. Sets stop when some rank was asked to stop.
  bool combine_iteration(Split split, std::optional<IterationResult>& result, bool& stop);
  /// Data-parallel: rank 0's early-stopping decision, on every rank.
  bool should_stop_early(size_t epoch);
  bool rank0() const { return !options_.group || options_.group->rank() == 0; }
  void checkpoint(TrainingHooks& hooks, size_t epoch);
  void resume(TrainingHooks& hooks, size_t epoch);
  LearnerOptions options_;
  MetricsStore store_;
  std::unique_ptr<ExperimentLog> log_;
  std::unique_ptr<SignalStopGuard> guard_;
  std::unique_ptr<FileCheckpointer> checkpointers_[4];  // model, optim, scheduler, grad scaler
  std::vector<double> running_sums_, running_weights_;  // data-parallel: each metric's epoch so far, all ranks
};

}  // namespace scorch::train
