#pragma once
// MetricSet: the metrics of one split of the Learner bound to the adaptors of its step output type.
#include <any>
#include <map>
#include <memory>
#include <typeindex>
#include <vector>

#include "scorch/core/error.h"
#include "scorch/train/learner_types.h"
#include "scorch/train/metric.h"

namespace scorch::train {

namespace detail {
/// The metrics of one split bound to the adaptors of the step output O.
template <class O> class MetricSet {
 public:
  MetricSet(const std::vector<std::shared_ptr<MetricBase>>& metrics, const char* split);
  /// Updates every metric with one item, adapting it once per input type.
  std::vector<MetricEntry> update(const O& item, const MetricMetadata& metadata);

 private:
  template <class... I>
  static void add_adaptors(std::map<std::type_index, std::any (*)(const O&)>& map, std::tuple<I...>*) {
    (map.emplace(typeid(I), [](const O& o) { return std::any(Adaptor<O, I>::adapt(o)); }), ...);
  }
  struct Binding {
    std::shared_ptr<MetricBase> metric;
    std::any (*adapt)(const O&);
  };
  std::vector<Binding> bindings_;
};

template <class O> MetricSet<O>::MetricSet(const std::vector<std::shared_ptr<MetricBase>>& metrics, const char* split) {
  std::map<std::type_index, std::any (*)(const O&)> adaptors;
  add_adaptors(adaptors, static_cast<typename O::Adapts*>(nullptr));
  for (const auto& m : metrics) {
    auto it = adaptors.find(m->input_type());
    if (m->input_type() != typeid(NoInput) && it == adaptors.end())
      throw ValueError("Learner::fit", std::string(split) + " metric '" + m->name() + "' reads " +
                                           type_name(m->input_type()) + ", which the step output " +
                                           type_name(typeid(O)) +
                                           " does not adapt to (specialize Adaptor and list the input in its Adapts)");
    bindings_.push_back({m, it == adaptors.end() ? nullptr : it->second});
  }
}

template <class O> std::vector<MetricEntry> MetricSet<O>::update(const O& item, const MetricMetadata& metadata) {
  std::map<std::type_index, std::any> inputs;
  std::vector<MetricEntry> entries;
  for (auto& [metric, adapt] : bindings_) {
    const std::any* input = nullptr;
    if (adapt) {
      auto it = inputs.find(metric->input_type());
      if (it == inputs.end()) it = inputs.emplace(metric->input_type(), adapt(item)).first;
      input = &it->second;
    }
    entries.push_back(metric->update_any(input, metadata));
  }
  return entries;
}

}  // namespace detail
}  // namespace scorch::train
