// scorch-server's sessions over Cuda (device 0): the generated executor compiled once for it.
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/remote/session.h"

namespace scorch::remote {

SessionFactory cuda_sessions() {
  return [](uint64_t memory_limit) { return std::make_unique<Session<Cuda>>(CudaDevice{}, memory_limit); };
}

}  // namespace scorch::remote
