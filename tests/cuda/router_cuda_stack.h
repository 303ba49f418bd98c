#pragma once
// Autodiff<Router<Cpu, Cuda>>: its op groups compiled once, from scorch/autodiff/instantiate/*.cpp, into
// scorch_router_cuda_autodiff (tests/CMakeLists.txt): what a program training across the Cpu and a GPU instantiates.
#include <scorch/autodiff/autodiff.h>
#include <scorch/backends/cpu/cpu_backend.h>
#include <scorch/backends/cuda/cuda_backend.h>
#include <scorch/router/router.h>

namespace scorch {
/// The Cpu (position 0) and a GPU (position 1) as one backend.
using RouterCpuCuda = Router<Cpu, Cuda>;
}  // namespace scorch

SCORCH_AUTODIFF_EXTERN(scorch::RouterCpuCuda);
