#pragma once
// scorch::nn: layers, activations, losses and initializers (inventory §6).
#include "scorch/nn/activation.h"
#include "scorch/nn/conv.h"
#include "scorch/nn/dropout.h"
#include "scorch/nn/initializer.h"
#include "scorch/nn/linear.h"
#include "scorch/nn/norm.h"
#include "scorch/nn/padding.h"
#include "scorch/nn/pool.h"
