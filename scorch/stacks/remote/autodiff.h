#pragma once
// Remote and Autodiff<Remote>, statically: Autodiff's op groups are instantiated in the program that names the stack
// (Dyn's "remote" stack, compiled once in scorch_remote, chooses it at run time). Gradients are recorded on the
// client; every op, forward and backward, runs on the server.
#include "scorch/autodiff/autodiff_impl.h"
#include "scorch/remote/remote.h"
