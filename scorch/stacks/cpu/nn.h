#pragma once
// Parameter loading (FieldOps<Param<Tensor>>::load, with its checks and messages) for float
// parameters of rank 1–6 on Cpu and Autodiff<Cpu>, compiled once in nn.cpp.
#include "scorch/stacks/cpu/autodiff.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/module/module_fields.h"

/// Applies X(Backend, rank) to Cpu, ranks 1–6.
#define SCORCH_CPU_ONLY_PARAM_RANKS(X) X(Cpu, 1) X(Cpu, 2) X(Cpu, 3) X(Cpu, 4) X(Cpu, 5) X(Cpu, 6)
/// Applies X(Backend, rank) to Cpu and `Autodiff<Cpu>`, ranks 1–6.
#define SCORCH_CPU_PARAM_RANKS(X) \
  SCORCH_CPU_ONLY_PARAM_RANKS(X)  \
  X(Autodiff<Cpu>, 1)             \
  X(Autodiff<Cpu>, 2) X(Autodiff<Cpu>, 3) X(Autodiff<Cpu>, 4) X(Autodiff<Cpu>, 5) X(Autodiff<Cpu>, 6)

#define SCORCH_EXTERN_PARAM_OPS(B, D) extern template struct FieldOps<Param<Tensor<B, D, Float>>>;

namespace scorch {
SCORCH_CPU_PARAM_RANKS(SCORCH_EXTERN_PARAM_OPS)
}  // namespace scorch
