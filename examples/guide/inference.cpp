// The guide's model on Cpu (validation and inference, see inference.hpp) and the infer command.
#include "inference.hpp"

namespace guide {

template struct Model<Cpu>;

Evaluation evaluate_guide(const std::string& artifact_dir, DataSource source, size_t show, BackendChoice backend) {
  if (backend.is_cpu()) return evaluate_on<Cpu>(artifact_dir, source, show);
  return evaluate_on_dyn(artifact_dir, source, show, backend);
}

QuantizedEvaluation evaluate_quantized(const std::string& artifact_dir, DataSource source) {
  auto model = load_model<Cpu>(artifact_dir);
  auto [train_set, test_set] = datasets(source);
  auto dynamic = quant::quantize(model);
  auto calibrated = quant::quantize(model, {}, {}, [&](const Model<Cpu>& m) {
    for (size_t start = 0; start < std::min<size_t>(train_set->len(), 1000); start += 100) {
      std::vector<data::MnistItem> items;
      for (size_t i = start; i < start + 100 && i < train_set->len(); ++i) items.push_back(*train_set->get(i));
      (void)infer(m, std::move(items));
    }
  });
  QuantizedEvaluation out;
  out.f32 = evaluate_model(model, test_set, 0).accuracy;
  out.int8_dynamic = evaluate_model(dynamic, test_set, 0).accuracy;
  out.int8_static = evaluate_model(calibrated, test_set, 0).accuracy;
  out.f32_bytes = quant::param_bytes(model).first;
  std::tie(out.int8_bytes, out.quantized) = quant::param_bytes(calibrated);
  return out;
}

}  // namespace guide
