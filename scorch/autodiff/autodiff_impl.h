#pragma once
// Every Autodiff op group's definitions, for a stack that is not compiled once in the library (the
// scorch/stacks/<stack>/autodiff.h of Fusion<Cpu>, LibTorch, Vulkan, Remote): a program that names Autodiff<B> for
// such a B instantiates the ops it uses. The library's own stacks include only the declarations
// (SCORCH_AUTODIFF_EXTERN).
#include "scorch/autodiff/autodiff.h"
#include "scorch/autodiff/ops/basic_ops_impl.h"
#include "scorch/autodiff/ops/layout_ops_impl.h"
#include "scorch/autodiff/ops/module_ops_impl.h"
#include "scorch/autodiff/ops/reduce_ops_impl.h"
#include "scorch/autodiff/ops/unary_ops_impl.h"
