// The example's commands on Cpu and Fusion<Cpu>, the choice of backend, and the precision names (training.h).
#include <scorch/stacks/fusion_cpu/autodiff.h>

#include "training_on.h"

namespace textgen {

std::optional<DType> autocast_of(const std::string& precision) {
  if (precision == "f32") return std::nullopt;
  if (precision == "bf16") return DType::BF16;
  if (precision == "f16") return DType::F16;
  throw ValueError("text-generation", "unknown precision '" + precision + "' (f32, bf16 or f16)");
}

TEXTGEN_BACKEND_COMMANDS(cpu, Cpu)
TEXTGEN_BACKEND_COMMANDS(fusion_cpu, FusionCpu)

train::FitReport train_text(const std::string& artifact_dir, const std::string& text, const TrainingConfig& config,
                            BackendChoice backend) {
  autocast_of(config.precision);  // an unknown name fails before anything is written
  std::filesystem::create_directories(artifact_dir);
  train::ExperimentLog(artifact_dir + "/experiment.log").info("backend: " + backend_name(backend));
  switch (backend) {
    case BackendChoice::Cpu: return train_text_cpu(artifact_dir, text, config);
    case BackendChoice::FusionCpu: return train_text_fusion_cpu(artifact_dir, text, config);
#ifdef SCORCH_EXAMPLE_LIBTORCH
    case BackendChoice::LibTorch: return train_text_libtorch(artifact_dir, text, config);
#endif
#ifdef SCORCH_EXAMPLE_CUDA
    case BackendChoice::Cuda: return train_text_cuda(artifact_dir, text, config);
#endif
    default: throw examples::backend_missing("text-generation train", backend);
  }
}

std::string generate(const std::string& artifact_dir, const std::string& prompt, size_t length, double temperature,
                     size_t top_k, uint64_t seed, BackendChoice backend) {
  switch (backend) {
    case BackendChoice::Cpu:
    case BackendChoice::FusionCpu: return generate_cpu(artifact_dir, prompt, length, temperature, top_k, seed);
#ifdef SCORCH_EXAMPLE_LIBTORCH
    case BackendChoice::LibTorch: return generate_libtorch(artifact_dir, prompt, length, temperature, top_k, seed);
#endif
#ifdef SCORCH_EXAMPLE_CUDA
    case BackendChoice::Cuda: return generate_cuda(artifact_dir, prompt, length, temperature, top_k, seed);
#endif
    default: throw examples::backend_missing("text-generation generate", backend);
  }
}

}  // namespace textgen
