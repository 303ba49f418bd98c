#include "scorch/train/checkpoint.h"

#include <filesystem>

#include "scorch/core/error.h"
#include "scorch/module/formats/byte_io.h"

namespace scorch::train {
namespace fs = std::filesystem;

FileCheckpointer::FileCheckpointer(std::string directory, std::string name, AnyRecorder recorder)
    : dir_(std::move(directory)), name_(std::move(name)), recorder_(std::move(recorder)) {
  formats::remove_stale_temporaries(dir_, name_ + "-");  // what a writer killed mid-save left behind
}

std::string FileCheckpointer::base(size_t epoch) const {
  return (fs::path(dir_) / (name_ + "-" + std::to_string(epoch))).string();
}
std::string FileCheckpointer::file(size_t epoch) const { return recorder_.file_path(base(epoch)); }
bool FileCheckpointer::exists(size_t epoch) const { return fs::exists(file(epoch)); }

std::string FileCheckpointer::save(size_t epoch, const Record& record) const {
  fs::create_directories(dir_);
  return recorder_.record(record, base(epoch));
}

Record FileCheckpointer::restore(size_t epoch) const {
  if (!exists(epoch))
    throw IoError("FileCheckpointer::restore", "no checkpoint '" + name_ + "' for epoch " + std::to_string(epoch) +
                                                   ": " + file(epoch) + " does not exist");
  return recorder_.load(base(epoch));
}

void FileCheckpointer::remove(size_t epoch) const {
  std::error_code ec;
  fs::remove(file(epoch), ec);
}

std::optional<size_t> latest_checkpoint(const std::string& artifact_dir) {
  std::error_code ec;
  std::map<size_t, std::set<std::string>> seen;  // epoch -> kinds present
  for (const auto& entry : fs::directory_iterator(fs::path(artifact_dir) / "checkpoint", ec)) {
    std::string n = entry.path().filename().string();
    auto dash = n.find('-');
    if (dash == std::string::npos || n.find(".tmp") != std::string::npos) continue;
    size_t end = dash + 1;
    while (end < n.size() && std::isdigit(static_cast<unsigned char>(n[end]))) ++end;
    if (end == dash + 1) continue;
    seen[std::stoul(n.substr(dash + 1, end - dash - 1))].insert(n.substr(0, dash));
  }
  for (auto it = seen.rbegin(); it != seen.rend(); ++it)
    if (it->second.count("model") && it->second.count("optim") && it->second.count("scheduler")) return it->first;
  return std::nullopt;
}

KeepLastNCheckpoints::KeepLastNCheckpoints(size_t n) : n_(n) {
  if (n == 0) throw ValueError("KeepLastNCheckpoints", "n must be at least 1");
}

std::vector<CheckpointingAction> KeepLastNCheckpoints::checkpointing(size_t epoch, const MetricsStore&) {
  std::vector<CheckpointingAction> out{{CheckpointingAction::Save, epoch}};
  if (epoch > n_) out.push_back({CheckpointingAction::Delete, epoch - n_});
  return out;
}

MetricCheckpointingStrategy::MetricCheckpointingStrategy(std::string metric, Aggregate aggregate, Direction direction,
                                                         Split split)
    : metric_(std::move(metric)), aggregate_(aggregate), direction_(direction), split_(split) {}

std::vector<CheckpointingAction> MetricCheckpointingStrategy::checkpointing(size_t epoch, const MetricsStore& store) {
  auto value = store.epoch_value(split_, metric_, epoch, aggregate_);
  if (!value) return {{CheckpointingAction::Save, epoch}};  // nothing to judge by yet: keep it
  bool better = !best_ || (direction_ == Direction::Lowest ? *value < best_->second : *value > best_->second);
  if (!better) return {{CheckpointingAction::Delete, epoch}};
  std::vector<CheckpointingAction> out{{CheckpointingAction::Save, epoch}};
  if (best_) out.push_back({CheckpointingAction::Delete, best_->first});
  best_ = {epoch, *value};
  return out;
}

ComposedCheckpointingStrategy& ComposedCheckpointingStrategy::add(std::unique_ptr<CheckpointingStrategy> strategy) {
  strategies_.push_back(std::move(strategy));
  deletes_.emplace_back();
  return *this;
}

std::vector<CheckpointingAction> ComposedCheckpointingStrategy::checkpointing(size_t epoch, const MetricsStore& store) {
  bool save = false;
  std::set<size_t> asked;
  for (size_t i = 0; i < strategies_.size(); ++i)
    for (const auto& action : strategies_[i]->checkpointing(epoch, store)) {
      if (action.kind == CheckpointingAction::Save) save = true;
      else deletes_[i].insert(action.epoch), asked.insert(action.epoch);
    }
  std::vector<CheckpointingAction> out;
  if (save) out.push_back({CheckpointingAction::Save, epoch});
  for (size_t e : asked) {
    bool all = std::all_of(deletes_.begin(), deletes_.end(), [&](const auto& s) { return s.count(e) > 0; });
    if (!all) continue;
    out.push_back({CheckpointingAction::Delete, e});
    for (auto& s : deletes_) s.erase(e);
  }
  return out;
}

std::unique_ptr<CheckpointingStrategy> default_checkpointing_strategy() {
  auto composed = std::make_unique<ComposedCheckpointingStrategy>();
  composed->add(KeepLastNCheckpoints(2))
      .add(MetricCheckpointingStrategy("Loss", Aggregate::Mean, Direction::Lowest, Split::Valid));
  return composed;
}

}  // namespace scorch::train
