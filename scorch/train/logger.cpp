#include "scorch/train/logger.h"

#include <chrono>
#include <ctime>
#include <filesystem>

#include "scorch/core/error.h"

namespace scorch::train {
namespace fs = std::filesystem;

std::string FileMetricLogger::file(Split split, const std::string& name, size_t epoch) const {
  std::string safe = name;
  for (char& c : safe)
    if (c == '/' || c == '\\') c = '_';
  return (fs::path(dir_) / split_name(split) / ("epoch-" + std::to_string(epoch)) / (safe + ".log")).string();
}

void FileMetricLogger::log(Split split, size_t epoch, const MetricEntry& entry) {
  if (entry.serialized.empty()) return;
  auto folder = fs::path(dir_) / split_name(split) / ("epoch-" + std::to_string(epoch));
  if (started_.insert({split, epoch}).second) {
    std::error_code ec;
    fs::remove_all(folder, ec);
    fs::create_directories(folder);
  }
  std::string path = file(split, entry.name, epoch);
  auto it = open_.find(path);
  if (it == open_.end()) {
    it = open_.emplace(path, std::ofstream(path, std::ios::app)).first;
    if (!it->second) throw IoError("FileMetricLogger", "cannot open " + path + " for writing");
  }
  it->second << entry.serialized << '\n';
}

void FileMetricLogger::end_epoch(Split split, size_t epoch) {
  std::string prefix = (fs::path(dir_) / split_name(split) / ("epoch-" + std::to_string(epoch))).string();
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->first.rfind(prefix, 0) == 0) it = open_.erase(it);  // closing flushes
    else ++it;
  }
}

std::optional<std::vector<double>> FileMetricLogger::read_numeric(Split split, const std::string& name,
                                                                  size_t epoch) const {
  std::ifstream in(file(split, name, epoch));
  if (!in) return std::nullopt;
  std::vector<double> values;
  std::string line;
  while (std::getline(in, line)) {
    try {
      values.push_back(std::stod(line));
    } catch (const std::exception&) {
      return std::nullopt;  // a text metric
    }
  }
  return values;
}

void InMemoryMetricLogger::log(Split split, size_t epoch, const MetricEntry& entry) {
  entries_[{split, epoch}].push_back(entry);
}

std::optional<std::vector<double>> InMemoryMetricLogger::read_numeric(Split split, const std::string& name,
                                                                      size_t epoch) const {
  auto it = entries_.find({split, epoch});
  if (it == entries_.end()) return std::nullopt;
  std::vector<double> out;
  for (const auto& e : it->second)
    if (e.name == name && e.value) out.push_back(*e.value);
  if (out.empty()) return std::nullopt;
  return out;
}

std::vector<MetricEntry> InMemoryMetricLogger::entries(Split split, size_t epoch) const {
  auto it = entries_.find({split, epoch});
  return it == entries_.end() ? std::vector<MetricEntry>{} : it->second;
}

void ExperimentLog::info(const std::string& line) {
  std::lock_guard lock(mutex_);
  std::ofstream out(file_, std::ios::app);
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  out << stamp << " INFO " << line << '\n';
}

}  // namespace scorch::train
