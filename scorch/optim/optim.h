#pragma once
// scorch::optim: optimizers, gradient clipping, GradientsParams and learning-rate schedulers.
#include "scorch/optim/adam.h"
#include "scorch/optim/adaptive.h"
#include "scorch/optim/clipping.h"
#include "scorch/optim/grad_scaler.h"
#include "scorch/optim/gradients_params.h"
#include "scorch/optim/lbfgs.h"
#include "scorch/optim/lr_scheduler.h"
#include "scorch/optim/optimizer.h"
#include "scorch/optim/sgd.h"
