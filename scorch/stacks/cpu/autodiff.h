#pragma once
// Autodiff<Cpu>: its op groups are compiled once (autodiff/instantiate/*.cpp); users only see declarations.
#include "scorch/autodiff/autodiff.h"
#include "scorch/backends/cpu/cpu_backend.h"

SCORCH_AUTODIFF_EXTERN(scorch::Cpu);
