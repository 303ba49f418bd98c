#pragma once
// Autodiff<Cpu>: its op groups are compiled once (autodiff/cpu/*.cpp); users only see declarations.
#include "scorch/autodiff/autodiff.h"
#include "scorch/backends/cpu/cpu_backend.h"

namespace scorch::autodiff {
extern template struct BasicOps<Cpu>;
extern template struct UnaryOps<Cpu>;
extern template struct ReduceOps<Cpu>;
extern template struct LayoutOps<Cpu>;
extern template struct ModuleOps<Cpu>;
}  // namespace scorch::autodiff
