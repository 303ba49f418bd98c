#pragma once
// Dyn and Autodiff<Dyn>: the autodiff op groups are compiled once for Dyn (autodiff/instantiate/*.cpp, built into
// scorch_dyn), so a program that trains on a stack chosen at run time compiles no backend at all.
#include "scorch/autodiff/autodiff.h"
#include "scorch/dyn/dyn.h"

SCORCH_AUTODIFF_EXTERN(scorch::Dyn);
