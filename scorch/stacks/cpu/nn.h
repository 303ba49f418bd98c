#pragma once
// Parameter loading (FieldOps<Param<Tensor>>::load, with its checks and messages) for float
// parameters of rank 1–6, and the forward passes of the layers most models hold (Linear on ranks 2 and 3, Conv1d,
// Conv2d, and the functional linear and conv under them, quantized paths included), on Cpu and Autodiff<Cpu>,
// compiled once in nn.cpp: a user's file that runs them does not instantiate them again.
#include "scorch/stacks/cpu/autodiff.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/module/module_fields.h"
#include "scorch/nn/conv.h"
#include "scorch/nn/linear.h"

/// Applies X(Backend, rank) to Cpu, ranks 1–6.
#define SCORCH_CPU_ONLY_PARAM_RANKS(X) X(Cpu, 1) X(Cpu, 2) X(Cpu, 3) X(Cpu, 4) X(Cpu, 5) X(Cpu, 6)
/// Applies X(Backend, rank) to Cpu and `Autodiff<Cpu>`, ranks 1–6.
#define SCORCH_CPU_PARAM_RANKS(X) \
  SCORCH_CPU_ONLY_PARAM_RANKS(X)  \
  X(Autodiff<Cpu>, 1)             \
  X(Autodiff<Cpu>, 2) X(Autodiff<Cpu>, 3) X(Autodiff<Cpu>, 4) X(Autodiff<Cpu>, 5) X(Autodiff<Cpu>, 6)

#define SCORCH_EXTERN_PARAM_OPS(B, D) extern template struct FieldOps<Param<Tensor<B, D, Float>>>;

/// Declares (PREFIX extern) or defines (PREFIX empty) the layers' forward passes on backend B.
#define SCORCH_LAYER_FORWARDS(PREFIX, B)                                                           \
  PREFIX template Tensor<B, 2> nn::Linear<B>::forward<2>(const Tensor<B, 2>&, bool) const;         \
  PREFIX template Tensor<B, 3> nn::Linear<B>::forward<3>(const Tensor<B, 3>&, bool) const;         \
  PREFIX template Tensor<B, 3> nn::Conv<B, 1>::forward(const Tensor<B, 3>&) const;                 \
  PREFIX template Tensor<B, 4> nn::Conv<B, 2>::forward(const Tensor<B, 4>&) const;                 \
  PREFIX template Tensor<B, 2> functional::linear<B, 2>(const Tensor<B, 2>&, const Tensor<B, 2>&,  \
                                                        const std::optional<Tensor<B, 1>>&, bool); \
  PREFIX template Tensor<B, 3> functional::linear<B, 3>(const Tensor<B, 3>&, const Tensor<B, 2>&,  \
                                                        const std::optional<Tensor<B, 1>>&, bool); \
  PREFIX template Tensor<B, 3> functional::conv<B, 3>(const Tensor<B, 3>&, const Tensor<B, 3>&,    \
                                                      const std::optional<Tensor<B, 1>>&,          \
                                                      const functional::ConvOptions<1>&);          \
  PREFIX template Tensor<B, 4> functional::conv<B, 4>(const Tensor<B, 4>&, const Tensor<B, 4>&,    \
                                                      const std::optional<Tensor<B, 1>>&,          \
                                                      const functional::ConvOptions<2>&);

namespace scorch {
SCORCH_CPU_PARAM_RANKS(SCORCH_EXTERN_PARAM_OPS)
SCORCH_LAYER_FORWARDS(extern, Cpu)
SCORCH_LAYER_FORWARDS(extern, Autodiff<Cpu>)
}  // namespace scorch
