#pragma once
// Fusion<Cuda> and Autodiff<Fusion<Cuda>>: the autodiff op groups are compiled once (autodiff/instantiate/*.cpp,
// built into scorch_fusion_cuda); users only see declarations.
#include "scorch/autodiff/autodiff.h"
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/backends/cuda/fusion/executor.h"
#include "scorch/fusion/fusion.h"

namespace scorch {
/// Cuda with elementwise ops fused into generated kernels.
using FusionCuda = Fusion<Cuda>;
}  // namespace scorch

SCORCH_AUTODIFF_EXTERN(scorch::FusionCuda);
