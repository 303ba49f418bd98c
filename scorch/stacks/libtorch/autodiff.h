#pragma once
// LibTorch and Autodiff<LibTorch>, statically: Autodiff's op groups are instantiated in the program that names the
// stack (Dyn's "libtorch" stack, compiled once in scorch_libtorch, chooses it at run time). Needs
// SCORCH_BUILD_LIBTORCH.
#include "scorch/autodiff/autodiff_impl.h"
#include "scorch/backends/libtorch/libtorch_backend.h"
