#pragma once
// Autodiff<Cuda>: its op groups are compiled once (autodiff/instantiate/*.cpp, built into
// scorch_cuda); users only see declarations. Needs SCORCH_BUILD_CUDA.
#include "scorch/autodiff/autodiff.h"
#include "scorch/backends/cuda/cuda_backend.h"
#include "scorch/backends/cuda/nccl.h"  // data-parallel gradients on NCCL (the Learner finds it through Cuda's device)

SCORCH_AUTODIFF_EXTERN(scorch::Cuda);
