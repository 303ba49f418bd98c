// The guide's model on Cpu (validation and inference, see inference.hpp), the infer command and the backend names.
#include "inference.hpp"

namespace guide {

template struct Model<Cpu>;

namespace {
const char* kBackendNames[] = {"cpu", "fusion-cpu", "libtorch", "cuda"};
}

std::vector<BackendChoice> built_backends() {
  std::vector<BackendChoice> built{BackendChoice::Cpu, BackendChoice::FusionCpu};
#ifdef SCORCH_GUIDE_LIBTORCH
  built.push_back(BackendChoice::LibTorch);
#endif
#ifdef SCORCH_GUIDE_CUDA
  built.push_back(BackendChoice::Cuda);
#endif
  return built;
}

std::string backend_name(BackendChoice backend) { return kBackendNames[static_cast<int>(backend)]; }

BackendChoice parse_backend(const std::string& name) {
  std::string built;
  for (BackendChoice b : built_backends()) {
    if (backend_name(b) == name) return b;
    built += (built.empty() ? "" : ", ") + backend_name(b);
  }
  bool known = std::find(std::begin(kBackendNames), std::end(kBackendNames), name) != std::end(kBackendNames);
  throw ValueError("guide --backend", "'" + name + (known ? "' is not in this build" : "' is not a backend") +
                                          " (this build has: " + built + ")");
}

Evaluation evaluate_guide(const std::string& artifact_dir, DataSource source, size_t show, BackendChoice backend) {
  switch (backend) {
#ifdef SCORCH_GUIDE_LIBTORCH
    case BackendChoice::LibTorch: return evaluate_on_libtorch(artifact_dir, source, show);
#endif
#ifdef SCORCH_GUIDE_CUDA
    case BackendChoice::Cuda: return evaluate_on_cuda(artifact_dir, source, show);
#endif
    case BackendChoice::Cpu:
    case BackendChoice::FusionCpu: return evaluate_on<Cpu>(artifact_dir, source, show);  // inference: nothing to fuse
    default: throw ValueError("guide infer", "backend " + backend_name(backend) + " is not in this build");
  }
}

}  // namespace guide
