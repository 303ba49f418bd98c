// The guide's model on Cpu (validation and inference, see inference.hpp) and the infer command.
#include "inference.hpp"

namespace guide {

template struct Model<Cpu>;

Evaluation evaluate_guide(const std::string& artifact_dir, DataSource source, size_t show) {
  auto model = load_model<Cpu>(artifact_dir);
  auto test = datasets(source).second;
  Evaluation out;
  size_t correct = 0, total = test->len();
  for (size_t start = 0; start < total; start += 1000) {
    std::vector<data::MnistItem> items;
    for (size_t i = start; i < std::min(total, start + 1000); ++i) items.push_back(*test->get(i));
    auto predicted = infer(model, items);
    for (size_t k = 0; k < items.size(); ++k) {
      correct += predicted[k] == items[k].label;
      if (out.first.size() < show) out.first.push_back({predicted[k], items[k].label});
    }
  }
  out.accuracy = total ? 100.0 * static_cast<double>(correct) / static_cast<double>(total) : 0.0;
  return out;
}

}  // namespace guide
