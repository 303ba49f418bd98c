// scorch-server's sessions over Cpu: the generated executor compiled once for it.
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/remote/session.h"

namespace scorch::remote {

SessionFactory cpu_sessions() {
  return [](uint64_t memory_limit) { return std::make_unique<Session<Cpu>>(CpuDevice{}, memory_limit); };
}

}  // namespace scorch::remote
