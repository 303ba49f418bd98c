#include "scorch/train/store.h"

#include <algorithm>
#include <numeric>

namespace scorch::train {

const char* split_name(Split split) { return split == Split::Train ? "train" : "valid"; }

void MetricsStore::add(Split split, const std::string& name, size_t epoch, double value,
                       std::optional<double> running) {
  if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
  values_[{split, name}][epoch].push_back(value);
  if (running) running_[{split, name}][epoch] = *running;
}

void MetricsStore::set_epoch(Split split, const std::string& name, size_t epoch, std::vector<double> values) {
  if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
  values_[{split, name}][epoch] = std::move(values);
  running_[{split, name}].erase(epoch);
}

void MetricsStore::drop_from(size_t epoch) {
  for (auto& [key, epochs] : values_) epochs.erase(epochs.lower_bound(epoch), epochs.end());
  for (auto& [key, epochs] : running_) epochs.erase(epochs.lower_bound(epoch), epochs.end());
}

const MetricsStore::Epochs* MetricsStore::find(Split split, const std::string& name) const {
  auto it = values_.find({split, name});
  return it == values_.end() ? nullptr : &it->second;
}

std::optional<double> MetricsStore::epoch_value(Split split, const std::string& name, size_t epoch, Aggregate) const {
  const Epochs* epochs = find(split, name);
  if (!epochs) return std::nullopt;
  auto it = epochs->find(epoch);
  if (it == epochs->end() || it->second.empty()) return std::nullopt;
  if (auto running = running_.find({split, name}); running != running_.end())
    if (auto value = running->second.find(epoch); value != running->second.end()) return value->second;
  return std::accumulate(it->second.begin(), it->second.end(), 0.0) / static_cast<double>(it->second.size());
}

std::vector<std::pair<size_t, double>> MetricsStore::epoch_values(Split split, const std::string& name) const {
  std::vector<std::pair<size_t, double>> out;
  if (const Epochs* epochs = find(split, name))
    for (const auto& [epoch, values] : *epochs)
      if (auto v = epoch_value(split, name, epoch)) out.emplace_back(epoch, *v);
  return out;
}

std::vector<double> MetricsStore::iteration_values(Split split, const std::string& name, size_t epoch) const {
  const Epochs* epochs = find(split, name);
  if (!epochs) return {};
  auto it = epochs->find(epoch);
  return it == epochs->end() ? std::vector<double>{} : it->second;
}

std::vector<double> MetricsStore::all_iteration_values(Split split, const std::string& name) const {
  std::vector<double> out;
  if (const Epochs* epochs = find(split, name))
    for (const auto& [epoch, values] : *epochs) out.insert(out.end(), values.begin(), values.end());
  return out;
}

std::vector<std::string> MetricsStore::names() const { return order_; }

}  // namespace scorch::train
