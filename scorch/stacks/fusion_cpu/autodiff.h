#pragma once
// Fusion<Cpu> and Autodiff<Fusion<Cpu>>, statically: Autodiff's op groups are instantiated in the program that names
// the stack (Dyn's "fusion<cpu>" stack, compiled once in scorch_fusion_cpu, is the way to choose it at run time).
#include "scorch/autodiff/autodiff_impl.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/backends/cpu/fusion/executor.h"
#include "scorch/fusion/fusion.h"

namespace scorch {
/// Cpu with fused elementwise ops.
using FusionCpu = Fusion<Cpu>;
}  // namespace scorch
