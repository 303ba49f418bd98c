#pragma once
// Autodiff<Router<Cpu, Cpu>> for the router's training test: its op groups are compiled once, from
// scorch/autodiff/instantiate/*.cpp, into scorch_router_autodiff_test (tests/CMakeLists.txt), as a user instantiates
// Autodiff over the router their program uses.
#include <scorch/autodiff/autodiff.h>
#include <scorch/backends/cpu/cpu_backend.h>
#include <scorch/router/router.h>

namespace scorch {
/// Two Cpu backends by position: a stand-in for Router<Cpu, Cuda> where no GPU is.
using RouterCpuCpu = Router<Cpu, Cpu>;
}  // namespace scorch

SCORCH_AUTODIFF_EXTERN(scorch::RouterCpuCpu);
