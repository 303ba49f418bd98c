#pragma once
// The module system: Param, Record, SCORCH_MODULE, SCORCH_CONFIG and the recorders.
#include "scorch/module/config.h"
#include "scorch/module/module.h"
#include "scorch/module/param.h"
#include "scorch/module/record.h"
#include "scorch/module/recorder.h"
#include "scorch/module/running_state.h"
