#include "scorch/train/loop.h"

#include <filesystem>

#include "scorch/core/error.h"
#include "scorch/train/metric_format.h"
#include "scorch/train/report.h"

namespace scorch::train {
namespace fs = std::filesystem;
namespace {
const char* kCheckpointNames[4] = {"model", "optim", "scheduler", "grad_scaler"};

// Data-parallel ranks other than 0 show nothing.
class SilentRenderer final : public MetricsRenderer {
 public:
  void start(const RunInfo&) override {}
  void update(Split, const std::vector<MetricEntry>&, const TrainingProgress&) override {}
  void end_epoch(Split, size_t, const MetricsStore&) override {}
  void finish(const std::string&) override {}
};
}  // namespace

SCORCH_DEFAULT_VALUE_MEMBERS(LearnerOptions);

TrainingLoop::TrainingLoop(LearnerOptions options) : options_(std::move(options)) {
  if (options_.artifact_dir.empty()) throw ValueError("LearnerBuilder", "the artifact directory is empty");
  if (options_.num_epochs == 0) throw ValueError("LearnerBuilder::num_epochs", "must be at least 1");
  if (options_.grads_accumulation == 0) throw ValueError("LearnerBuilder::grads_accumulation", "must be at least 1");
  if (options_.checkpoint && !options_.checkpoint_recorder)
    throw ValueError("LearnerBuilder::checkpoint", "resuming from epoch " + std::to_string(*options_.checkpoint) +
                                                       " needs with_file_checkpointer(recorder)");
  if (!rank0()) {  // rank 0 alone writes and shows; the others only train
    log_ = std::make_unique<ExperimentLog>("");
    options_.loggers.clear(), options_.renderer = std::make_shared<SilentRenderer>();
    options_.plots = options_.summary = false;
    return;
  }
  fs::create_directories(options_.artifact_dir);
  log_ = std::make_unique<ExperimentLog>((fs::path(options_.artifact_dir) / "experiment.log").string());
  if (options_.loggers.empty()) options_.loggers.push_back(std::make_shared<FileMetricLogger>(options_.artifact_dir));
  if (!options_.renderer) options_.renderer = default_renderer();
  if (!options_.checkpointing) options_.checkpointing = default_checkpointing_strategy();
  if (options_.checkpoint_recorder)
    for (int k = 0; k < (options_.grad_scaler ? 4 : 3); ++k)
      checkpointers_[k] = std::make_unique<FileCheckpointer>((fs::path(options_.artifact_dir) / "checkpoint").string(),
                                                             kCheckpointNames[k], *options_.checkpoint_recorder);
}

TrainingLoop::~TrainingLoop() = default;

void TrainingLoop::resume(TrainingHooks& hooks, size_t epoch) {
  CheckpointRecords records{checkpointers_[0]->restore(epoch), checkpointers_[1]->restore(epoch),
                            checkpointers_[2]->restore(epoch), std::nullopt};
  if (checkpointers_[3] && checkpointers_[3]->exists(epoch)) records.grad_scaler = checkpointers_[3]->restore(epoch);
  else if (checkpointers_[3])  // a checkpoint written without loss scaling: the scaler starts from its settings
    log_->info("no grad scaler checkpoint for epoch " + std::to_string(epoch) + ": the loss scale starts afresh");
  hooks.restore(records);
  // The curves of the epochs already done come back from the loggers.
  for (int s = 0; s < 2; ++s) {
    Split split = s ? Split::Valid : Split::Train;
    for (const auto& metric : options_.metrics[s])
      for (size_t e = 1; e <= epoch; ++e)
        for (const auto& logger : options_.loggers)
          if (auto values = logger->read_numeric(split, metric->name(), e)) {
            auto weights = logger->read_weights(split, metric->name(), e);
            store_.set_epoch(
                split, metric->name(), e, std::move(*values),
                weights && weights->size() == values->size() ? std::move(*weights) : std::vector<double>{});
            break;
          }
  }
  // Policies see the earlier epochs again so that they know the best so far (their actions were taken then).
  for (size_t e = 1; e <= epoch; ++e) {
    options_.checkpointing->checkpointing(e, store_);
    if (options_.early_stopping) options_.early_stopping->should_stop(e, store_);
  }
  log_->info("resumed from the checkpoint of epoch " + std::to_string(epoch));
}

bool TrainingLoop::run_split(TrainingHooks& hooks, Split split, size_t epoch) {
  int s = split == Split::Valid;
  for (const auto& metric : options_.metrics[s]) metric->clear();
  hooks.start_epoch(split, epoch);
  running_sums_.assign(options_.metrics[s].size(), 0.0), running_weights_.assign(options_.metrics[s].size(), 0.0);
  for (size_t iteration = 1;; ++iteration) {
    if (guard_) guard_->poll();
    bool stop = options_.interrupter.should_stop();
    if (stop && !options_.group) return false;
    // Data-parallel ranks run the iteration (its collectives) even when stopping, then stop together.
    auto result = hooks.iterate(split, epoch, iteration);
    if (options_.group) {
      if (!combine_iteration(split, result, stop)) break;
      if (stop) {
        if (!options_.interrupter.should_stop()) options_.interrupter.stop("another data-parallel rank stopped");
        return false;
      }
      if (!result) continue;  // this rank's share of the split is done; others still have batches
    }
    if (!result) break;
    for (const auto& entry : result->entries) {
      for (const auto& logger : options_.loggers) logger->log(split, epoch, entry);
      if (entry.value) store_.add(split, entry.name, epoch, *entry.value, entry.weight);
    }
    options_.renderer->update(split, result->entries,
                              {epoch, options_.num_epochs, iteration, result->items_processed, result->items_total});
  }
  if (split == Split::Train) hooks.end_train_epoch();
  for (const auto& logger : options_.loggers) logger->end_epoch(split, epoch);
  options_.renderer->end_epoch(split, epoch, store_);
  return true;
}

void TrainingLoop::checkpoint(TrainingHooks& hooks, size_t epoch) {
  if (!checkpointers_[0]) return;
  auto actions = options_.checkpointing->checkpointing(epoch, store_);
  for (const auto& action : actions) {
    if (action.kind != CheckpointingAction::Save) continue;
    auto records = hooks.records();
    // The model goes last: an epoch is complete once its files exist.
    checkpointers_[1]->save(epoch, records.optim);
    checkpointers_[2]->save(epoch, records.scheduler);
    if (checkpointers_[3] && records.grad_scaler) checkpointers_[3]->save(epoch, *records.grad_scaler);
    log_->info("checkpoint of epoch " + std::to_string(epoch) + " written to " +
               checkpointers_[0]->save(epoch, records.model));
  }
  for (const auto& action : actions) {
    if (action.kind != CheckpointingAction::Delete) continue;
    for (const auto& c : checkpointers_)
      if (c) c->remove(action.epoch);
    log_->info("checkpoint of epoch " + std::to_string(action.epoch) + " deleted");
  }
}

bool TrainingLoop::combine_iteration(Split split, std::optional<IterationResult>& result, bool& stop) {
  size_t m = options_.metrics[split == Split::Valid].size();
  std::vector<double> v(2 + 2 * m, 0.0);  // has a batch, stop, then each metric's value × weight and weight
  v[0] = result ? 1 : 0, v[1] = stop ? 1 : 0;
  for (size_t k = 0; result && k < m && k < result->entries.size(); ++k)
    if (const auto& e = result->entries[k]; e.value && e.format)
      v[2 + 2 * k] = *e.value * e.weight, v[3 + 2 * k] = e.weight;
  options_.group->all_reduce(v.data(), v.size());
  stop = v[1] > 0;
  if (v[0] == 0) return false;
  for (size_t k = 0; k < m; ++k) running_sums_[k] += v[2 + 2 * k], running_weights_[k] += v[3 + 2 * k];
  for (size_t k = 0; result && k < m && k < result->entries.size(); ++k)
    if (auto& e = result->entries[k]; e.value && e.format && v[3 + 2 * k] > 0)
      e = numeric_entry(v[2 + 2 * k] / v[3 + 2 * k], running_sums_[k] / running_weights_[k], *e.format, v[3 + 2 * k]);
  return true;
}

bool TrainingLoop::should_stop_early(size_t epoch) {
  if (!options_.early_stopping) return false;
  bool stop = rank0() && options_.early_stopping->should_stop(epoch, store_);
  if (options_.group) {
    uint8_t flag = stop;
    options_.group->broadcast(&flag, 1, 0);
    stop = flag != 0;
  }
  return stop;
}

FitReport TrainingLoop::run(TrainingHooks& hooks) {
  FitReport report;
  size_t first = 1;
  if (options_.checkpoint) {
    if (rank0()) resume(hooks, *options_.checkpoint);
    first = *options_.checkpoint + 1;
  }
  hooks.start_run();
  report.epochs_completed = first - 1;
  if (options_.stop_on_signals) guard_ = std::make_unique<SignalStopGuard>(options_.interrupter);
  log_->info("training " + hooks.describe() + " for epochs " + std::to_string(first) + " to " +
             std::to_string(options_.num_epochs));
  options_.renderer->start({options_.num_epochs, first, options_.interrupter, &store_});
  try {
    for (size_t epoch = first; epoch <= options_.num_epochs; ++epoch) {
      if (!run_split(hooks, Split::Train, epoch) || !run_split(hooks, Split::Valid, epoch)) {
        report.interrupted = true;
        report.reason = options_.interrupter.reason();
        store_.drop_from(epoch);  // a partial epoch is neither plotted nor summarized
        log_->info("stopped during epoch " + std::to_string(epoch) + " (" + report.reason +
                   "); the last complete epoch is " + std::to_string(report.epochs_completed));
        break;
      }
      checkpoint(hooks, epoch);
      report.epochs_completed = epoch;
      if (should_stop_early(epoch)) {
        report.stopped_early = true;
        report.reason = "early stopping after epoch " + std::to_string(epoch);
        log_->info(report.reason);
        break;
      }
    }
  } catch (...) {
    options_.renderer->finish("");
    guard_.reset();
    throw;
  }
  guard_.reset();
  if (options_.plots) write_metric_plots(store_, (fs::path(options_.artifact_dir) / "plots").string());
  std::string summary = options_.summary ? learner_summary(store_, report.epochs_completed, hooks.describe()) : "";
  options_.renderer->finish(summary);
  log_->info("training ended after epoch " + std::to_string(report.epochs_completed) +
             (report.reason.empty() ? "" : " (" + report.reason + ")"));
  return report;
}

}  // namespace scorch::train
