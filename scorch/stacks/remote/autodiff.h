#pragma once
// Autodiff<Remote>: its op groups are compiled once (autodiff/instantiate/*.cpp, built into scorch_remote); users
// only see declarations. Gradients are recorded on the client; every op, forward and backward, runs on the server.
#include "scorch/autodiff/autodiff.h"
#include "scorch/remote/remote.h"

SCORCH_AUTODIFF_EXTERN(scorch::Remote);
