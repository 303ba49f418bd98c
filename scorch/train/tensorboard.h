#pragma once
// TensorBoard event files: TensorBoardLogger writes a run's scalars (every numeric metric per iteration under
// "<split>/<metric>", its epoch value under "<split>/<metric>/epoch") and optional histograms into
// <dir>/events.out.tfevents.<time>.<host>.scorch, a file TensorBoard reads. The records (length, masked CRC32C of the
// length, an Event protobuf, its masked CRC32C) and the Event/Summary messages are encoded here (tensorboard.cpp).
#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <span>
#include <string>

#include "scorch/train/logger.h"

namespace scorch::train {

namespace tensorboard {
/// CRC-32C (Castagnoli) of n bytes.
uint32_t crc32c(const void* data, size_t n);
/// The checksum a record stores: the CRC rotated right by 15 bits plus 0xa282ead8.
uint32_t masked_crc32c(const void* data, size_t n);
/// One record of an event file holding the serialized event.
std::string record(const std::string& event);
/// An Event with the file version ("brain.Event:2"), the first record of every file.
std::string file_version_event(double wall_time);
/// An Event holding one scalar summary value.
std::string scalar_event(double wall_time, int64_t step, const std::string& tag, float value);
/// An Event holding a histogram of the finite values: buckets of equal width between min and max (at most `buckets`);
/// a ValueError when none is finite.
std::string histogram_event(double wall_time, int64_t step, const std::string& tag, std::span<const double> values,
                            size_t buckets = 30);
}  // namespace tensorboard

class TensorBoardLogger final : public MetricLogger {
 public:
  /// Creates directory and a new event file in it (a resumed run adds a file; TensorBoard reads them all). Each tag's
  /// per-iteration steps go on from where an earlier run's last complete epoch left them (directory/steps.tsv).
  explicit TensorBoardLogger(std::string directory);
  /// A numeric entry becomes a scalar at the next step of its tag; other entries are skipped.
  void log(Split split, size_t epoch, const MetricEntry& entry) override;
  /// Writes each metric's epoch value (its last running value) at step epoch, flushes the file and records each
  /// tag's next step in steps.tsv.
  void end_epoch(Split split, size_t epoch) override;
  /// Event files are not read back: nullopt.
  std::optional<std::vector<double>> read_numeric(Split, const std::string&, size_t) const override {
    return std::nullopt;
  }
  /// Adds a histogram of values (e.g. a parameter's) under tag at step.
  void histogram(const std::string& tag, std::span<const double> values, int64_t step);
  /// The event file's path.
  const std::string& file() const { return file_; }

 private:
  void write(const std::string& event);
  void flush();

  std::string file_, steps_file_;
  std::ofstream out_;
  std::mutex mutex_;
  std::map<std::string, int64_t> steps_;        // tag → steps written
  std::map<std::string, double> epoch_values_;  // "<split>/<metric>" → last running value this epoch
};

}  // namespace scorch::train
