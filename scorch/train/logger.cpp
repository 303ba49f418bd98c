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

namespace {

/// The values (column 0) and weights (column 1, 1 when absent) of a log file's "value[,weight]" lines; nullopt
/// when the file is missing or a line is not numeric (a text metric).
std::optional<std::vector<double>> read_column(const std::string& path, int column) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::vector<double> out;
  std::string line;
  while (std::getline(in, line)) {
    try {
      size_t end = 0;
      double value = std::stod(line, &end), weight = 1;
      if (end < line.size() && line[end] == ',') {
        size_t weight_end = 0;
        weight = std::stod(line.substr(end + 1), &weight_end);
        end += 1 + weight_end;
      }
      if (end != line.size()) return std::nullopt;
      out.push_back(column == 0 ? value : weight);
    } catch (const std::exception&) { return std::nullopt; }
  }
  return out;
}

}  // namespace

std::optional<std::vector<double>> FileMetricLogger::read_numeric(Split split, const std::string& name,
                                                                  size_t epoch) const {
  return read_column(file(split, name, epoch), 0);
}

std::optional<std::vector<double>> FileMetricLogger::read_weights(Split split, const std::string& name,
                                                                  size_t epoch) const {
  return read_column(file(split, name, epoch), 1);
}

void InMemoryMetricLogger::log(Split split, size_t epoch, const MetricEntry& entry) {
  entries_[{split, epoch}].push_back(entry);
}

std::optional<std::vector<double>> InMemoryMetricLogger::numeric(Split split, const std::string& name, size_t epoch,
                                                                 bool weights) const {
  auto it = entries_.find({split, epoch});
  if (it == entries_.end()) return std::nullopt;
  std::vector<double> out;
  for (const auto& e : it->second)
    if (e.name == name && e.value) out.push_back(weights ? e.weight : *e.value);
  if (out.empty()) return std::nullopt;
  return out;
}

std::vector<MetricEntry> InMemoryMetricLogger::entries(Split split, size_t epoch) const {
  auto it = entries_.find({split, epoch});
  return it == entries_.end() ? std::vector<MetricEntry>{} : it->second;
}

void ExperimentLog::info(const std::string& line) {
  if (file_.empty()) return;
  std::lock_guard lock(mutex_);
  std::ofstream out(file_, std::ios::app);
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  out << stamp << " INFO " << line << '\n';
}

}  // namespace scorch::train
