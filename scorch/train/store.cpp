#include "scorch/train/store.h"

#include <algorithm>
#include <numeric>

#include "scorch/core/error.h"

namespace scorch::train {

SCORCH_DEFAULT_VALUE_MEMBERS(MetricsStore);

const char* split_name(Split split) { return split == Split::Train ? "train" : "valid"; }

void MetricsStore::add(Split split, const std::string& name, size_t epoch, double value, double weight) {
  if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
  values_[{split, name}][epoch].push_back(value);
  weights_[{split, name}][epoch].push_back(weight);
}

void MetricsStore::set_epoch(Split split, const std::string& name, size_t epoch, std::vector<double> values,
                             std::vector<double> weights) {
  if (weights.empty()) weights.assign(values.size(), 1.0);
  if (weights.size() != values.size())
    throw ValueError("MetricsStore::set_epoch", name + ": " + std::to_string(weights.size()) + " weights for " +
                                                    std::to_string(values.size()) + " values");
  if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
  values_[{split, name}][epoch] = std::move(values);
  weights_[{split, name}][epoch] = std::move(weights);
}

void MetricsStore::drop_from(size_t epoch) {
  for (auto* all : {&values_, &weights_})
    for (auto& [key, epochs] : *all) epochs.erase(epochs.lower_bound(epoch), epochs.end());
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
  const auto& weights = weights_.at({split, name}).at(epoch);
  double sum = 0, total = 0;
  for (size_t i = 0; i < it->second.size(); ++i) sum += it->second[i] * weights[i], total += weights[i];
  return total > 0 ? sum / total
                   : std::accumulate(it->second.begin(), it->second.end(), 0.0) / double(it->second.size());
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
