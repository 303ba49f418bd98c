#pragma once
// Autodiff<LibTorch>: its op groups are compiled once (autodiff/instantiate/*.cpp, built into
// scorch_libtorch); users only see declarations. Needs SCORCH_BUILD_LIBTORCH.
#include "scorch/autodiff/autodiff.h"
#include "scorch/backends/libtorch/libtorch_backend.h"

SCORCH_AUTODIFF_EXTERN(scorch::LibTorch);
