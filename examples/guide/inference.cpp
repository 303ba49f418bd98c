// The guide's model on Cpu (validation and inference, see inference.hpp) and the infer command.
#include "inference.hpp"

namespace guide {

template struct Model<Cpu>;

Evaluation evaluate_guide(const std::string& artifact_dir, DataSource source, size_t show, BackendChoice backend) {
  switch (backend) {
#ifdef SCORCH_EXAMPLE_LIBTORCH
    case BackendChoice::LibTorch: return evaluate_on_libtorch(artifact_dir, source, show);
#endif
#ifdef SCORCH_EXAMPLE_CUDA
    case BackendChoice::Cuda: return evaluate_on_cuda(artifact_dir, source, show);
#endif
#ifdef SCORCH_EXAMPLE_VULKAN
    case BackendChoice::Vulkan: return evaluate_on_vulkan(artifact_dir, source, show);
#endif
    case BackendChoice::Cpu:
    case BackendChoice::FusionCpu: return evaluate_on<Cpu>(artifact_dir, source, show);  // inference: nothing to fuse
    default: throw examples::backend_missing("guide infer", backend);
  }
}

}  // namespace guide
