#pragma once
// The backends an example trains and runs on, picked with --backend NAME: Cpu and Fusion<Cpu> always, LibTorch, Cuda
// and Vulkan where the example's build has them (SCORCH_EXAMPLE_LIBTORCH, SCORCH_EXAMPLE_CUDA, SCORCH_EXAMPLE_VULKAN:
// examples/CMakeLists.txt's scorch_example_backends).
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include <scorch/core/error.h>

namespace scorch::examples {

/// A backend by name: Autodiff over it for training.
enum class BackendChoice { Cpu, FusionCpu, LibTorch, Cuda, Vulkan };

inline constexpr const char* kBackendNames[] = {"cpu", "fusion-cpu", "libtorch", "cuda", "vulkan"};

/// The name parse_backend reads.
inline std::string backend_name(BackendChoice backend) { return kBackendNames[static_cast<int>(backend)]; }

/// The backends this program was built with.
inline std::vector<BackendChoice> built_backends() {
  std::vector<BackendChoice> built{BackendChoice::Cpu, BackendChoice::FusionCpu};
#ifdef SCORCH_EXAMPLE_LIBTORCH
  built.push_back(BackendChoice::LibTorch);
#endif
#ifdef SCORCH_EXAMPLE_CUDA
  built.push_back(BackendChoice::Cuda);
#endif
#ifdef SCORCH_EXAMPLE_VULKAN
  built.push_back(BackendChoice::Vulkan);
#endif
  return built;
}

/// The backend called name; a ValueError from `op` (e.g. "guide --backend") names the backends this build has.
inline BackendChoice parse_backend(const std::string& op, const std::string& name) {
  std::string built;
  for (BackendChoice b : built_backends()) {
    if (backend_name(b) == name) return b;
    built += (built.empty() ? "" : ", ") + backend_name(b);
  }
  bool known = std::find(std::begin(kBackendNames), std::end(kBackendNames), name) != std::end(kBackendNames);
  throw ValueError(
      op, "'" + name + (known ? "' is not in this build" : "' is not a backend") + " (this build has: " + built + ")");
}

/// The error for a backend that parse_backend accepts but the command has no code for in this build.
inline ValueError backend_missing(const std::string& op, BackendChoice backend) {
  return ValueError(op, "backend " + backend_name(backend) + " is not in this build");
}

}  // namespace scorch::examples
