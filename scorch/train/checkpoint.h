#pragma once
// Checkpoints: FileCheckpointer writes one record per epoch as {dir}/{name}-{epoch}.{ext} through
// any recorder (each file is written to a temporary and renamed, so none is ever half-written).
// Checkpointing strategies decide which epochs to keep.
#include <concepts>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scorch/module/record.h"
#include "scorch/train/store.h"

namespace scorch::train {

/// A recorder of any type, seen through its three operations.
struct AnyRecorder {
  std::function<std::string(const Record&, const std::string&)> record;  // writes path + ext, returns the file
  std::function<Record(const std::string&)> load;                        // reads path + ext
  std::function<std::string(const std::string&)> file_path;              // path + ext
  template <class R> static AnyRecorder from(R recorder) {
    return {[recorder](const Record& r, const std::string& p) { return recorder.record(r, p); },
            [recorder](const std::string& p) { return recorder.load(p); },
            [recorder](const std::string& p) { return recorder.file_path(p); }};
  }
};

class FileCheckpointer {
 public:
  /// Removes the temporary files of earlier runs killed while saving this checkpointer's files.
  FileCheckpointer(std::string directory, std::string name, AnyRecorder recorder);
  /// Writes the epoch's record; returns the file written.
  std::string save(size_t epoch, const Record& record) const;
  /// Reads the epoch's record; throws IoError naming the file when it is missing.
  Record restore(size_t epoch) const;
  /// Removes the epoch's file (no error when it is already gone).
  void remove(size_t epoch) const;
  bool exists(size_t epoch) const;
  /// The file of an epoch.
  std::string file(size_t epoch) const;

 private:
  std::string base(size_t epoch) const;
  std::string dir_, name_;
  AnyRecorder recorder_;
};

/// The highest epoch of artifact_dir/checkpoint with model, optim and scheduler files all present.
std::optional<size_t> latest_checkpoint(const std::string& artifact_dir);

struct CheckpointingAction {
  enum Kind { Save, Delete } kind;
  size_t epoch;
  friend bool operator==(const CheckpointingAction&, const CheckpointingAction&) = default;
};

/// Decides, after each epoch, whether to save it and which earlier epochs to delete.
class CheckpointingStrategy {
 public:
  virtual ~CheckpointingStrategy() = default;
  virtual std::vector<CheckpointingAction> checkpointing(size_t epoch, const MetricsStore& store) = 0;
};

/// Saves every epoch and deletes the one n epochs back.
class KeepLastNCheckpoints final : public CheckpointingStrategy {
 public:
  explicit KeepLastNCheckpoints(size_t n);
  std::vector<CheckpointingAction> checkpointing(size_t epoch, const MetricsStore& store) override;

 private:
  size_t n_;
};

/// Keeps only the best epoch by a metric's epoch value: saves a new best and deletes the
/// previous one; asks to delete any epoch that is not the best.
class MetricCheckpointingStrategy final : public CheckpointingStrategy {
 public:
  MetricCheckpointingStrategy(std::string metric, Aggregate aggregate, Direction direction, Split split);
  std::vector<CheckpointingAction> checkpointing(size_t epoch, const MetricsStore& store) override;

 private:
  std::string metric_;
  Aggregate aggregate_;
  Direction direction_;
  Split split_;
  std::optional<std::pair<size_t, double>> best_;
};

/// Several strategies: an epoch is saved when any strategy saves it and deleted only once every
/// strategy has asked to delete it.
class ComposedCheckpointingStrategy final : public CheckpointingStrategy {
 public:
  ComposedCheckpointingStrategy& add(std::unique_ptr<CheckpointingStrategy> strategy);
  template <std::derived_from<CheckpointingStrategy> S> ComposedCheckpointingStrategy& add(S strategy) {
    return add(std::unique_ptr<CheckpointingStrategy>(std::make_unique<S>(std::move(strategy))));
  }
  std::vector<CheckpointingAction> checkpointing(size_t epoch, const MetricsStore& store) override;

 private:
  std::vector<std::unique_ptr<CheckpointingStrategy>> strategies_;
  std::vector<std::set<size_t>> deletes_;
};

/// The default: keep the last two epochs and the best by mean validation loss.
std::unique_ptr<CheckpointingStrategy> default_checkpointing_strategy();

}  // namespace scorch::train
