#pragma once
// The binary float ops' test cases, each described once: the op (its op_table.txt name float_<op>,
// its Tensor method a.<op>(b) and its KindOps function), the domains its two inputs are drawn from,
// and the PyTorch expression of a and b that gives the expected values. Every case runs on a [2, 3]
// and a [1, 3] input, so each also checks broadcasting (and, in the gradient, its reduction). The
// list drives the conformance fixtures and cases, the gradient fixtures, cases and finite
// differences, and the differential run, as tests/registry/unary_cases.h does for unary ops.
// float_remainder is not here: its gradient test needs a / b away from whole numbers, a condition on
// both inputs together (tests/autodiff/gen_grad_fixtures.py draws it by hand).
#include "domains.h"

/// X(op, Domain of a, Domain of b, "PyTorch expression of a and b") for every binary float op.
#define SCORCH_BINARY_CASES(X)                 \
  X(add, Normal, Normal, "a + b")              \
  X(sub, Normal, Normal, "a - b")              \
  X(mul, Normal, Normal, "a * b")              \
  X(div, Normal, NonZero, "a / b")             \
  X(powf, Positive, Normal, "torch.pow(a, b)") \
  X(atan2, Normal, NonZero, "torch.atan2(a, b)")
