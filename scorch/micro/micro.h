#pragma once
// The micro runtime: freestanding inference (no exceptions, RTTI, threads, files or heap) over weights compiled into
// flash. See docs/embedded.md.
#include "scorch/micro/activation.h"
#include "scorch/micro/attention.h"
#include "scorch/micro/conv.h"
#include "scorch/micro/graph.h"
#include "scorch/micro/linear.h"
#include "scorch/micro/norm.h"
#include "scorch/micro/pool.h"
#include "scorch/micro/weights.h"
