// The example's commands on Cpu, the choice of backend (every other stack: backend_dyn.cpp), and the precision names
// (training.h).
#include "training_on.h"

namespace textgen {

std::optional<DType> autocast_of(const std::string& precision) {
  if (precision == "f32") return std::nullopt;
  if (precision == "bf16") return DType::BF16;
  if (precision == "f16") return DType::F16;
  throw ValueError("text-generation", "unknown precision '" + precision + "' (f32, bf16 or f16)");
}

TEXTGEN_BACKEND_COMMANDS(cpu, Cpu)

train::FitReport train_text(const std::string& artifact_dir, const std::string& text, const TrainingConfig& config,
                            BackendChoice backend) {
  autocast_of(config.precision);  // an unknown name fails before anything is written
  std::filesystem::create_directories(artifact_dir);
  train::ExperimentLog(artifact_dir + "/experiment.log").info("backend: " + backend_name(backend));
  if (backend.is_cpu()) return train_text_cpu(artifact_dir, text, config);
  Dyn::set_default_device(backend.device());
  return train_text_dyn(artifact_dir, text, config);
}

std::string generate(const std::string& artifact_dir, const std::string& prompt, size_t length, double temperature,
                     size_t top_k, uint64_t seed, BackendChoice backend) {
  if (backend.is_cpu()) return generate_cpu(artifact_dir, prompt, length, temperature, top_k, seed);
  Dyn::set_default_device(backend.device());
  return generate_dyn(artifact_dir, prompt, length, temperature, top_k, seed);
}

}  // namespace textgen
