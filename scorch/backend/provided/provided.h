#pragma once
// Default implementations of the ops op_table.txt marks `provided`, built from required ops.
// Every call goes through KindOps so a backend's override of another provided op is used.
#include "scorch/backend/provided/activation_defaults.h"
#include "scorch/backend/provided/creation_defaults.h"
#include "scorch/backend/provided/fused_defaults.h"
#include "scorch/backend/provided/layout_defaults.h"
#include "scorch/backend/provided/math_defaults.h"
#include "scorch/backend/provided/module_defaults.h"
#include "scorch/backend/provided/optim_defaults.h"
#include "scorch/backend/provided/reduce_defaults.h"
#include "scorch/backend/provided/quant_defaults.h"
