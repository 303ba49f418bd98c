#pragma once
// The umbrella header: core types, the Tensor API, activations, the Cpu backend, Autodiff<Cpu>
// the module system (Param, SCORCH_MODULE, SCORCH_CONFIG, records and recorders, PyTorch import), nn, optim and
// post-training quantization, and vision ops (non-maximum suppression).
#include "scorch/stacks/cpu/autodiff.h"
#include "scorch/backends/cpu/cpu_backend.h"
#include "scorch/core/distribution.h"
#include "scorch/core/dtype.h"
#include "scorch/core/error.h"
#include "scorch/core/scalar.h"
#include "scorch/core/shape.h"
#include "scorch/core/tensor_data.h"
#include "scorch/import/pytorch/pytorch.h"
#include "scorch/module/scorch_module.h"
#include "scorch/tensor/activation.h"
#include "scorch/tensor/display.h"
#include "scorch/tensor/einsum.h"
#include "scorch/tensor/functional.h"
#include "scorch/tensor/tensor.h"
#include "scorch/nn/nn.h"
#include "scorch/optim/optim.h"
#include "scorch/quant/quantize.h"
#include "scorch/stacks/cpu/nn.h"
#include "scorch/stacks/cpu/optim.h"
#include "scorch/vision/nms.h"

namespace scorch {
static_assert(Backend<Cpu>, "the Cpu backend must satisfy the Backend contract");
static_assert(AutodiffBackend<Autodiff<Cpu>>, "Autodiff<Cpu> must satisfy the AutodiffBackend contract");
static_assert(!AutodiffBackend<Cpu>, "Cpu alone has no autodiff");
}  // namespace scorch
