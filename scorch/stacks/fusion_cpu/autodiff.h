#pragma once
// Fusion<Cpu> and Autodiff<Fusion<Cpu>>: the autodiff op groups are compiled once (autodiff/instantiate/*.cpp,
// built into scorch_fusion_cpu); users only see declarations.
#include "scorch/autodiff/autodiff.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/fusion/cpu_executor.h"
#include "scorch/fusion/fusion.h"

namespace scorch {
/// Cpu with fused elementwise ops.
using FusionCpu = Fusion<Cpu>;
}  // namespace scorch

SCORCH_AUTODIFF_EXTERN(scorch::FusionCpu);
