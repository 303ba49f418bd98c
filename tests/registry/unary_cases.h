#pragma once
// The unary float ops' test cases, each described once: the op (its op_table.txt name float_<op>,
// its Tensor method x.<op>() and its KindOps function), the domain its inputs are drawn from, and
// the PyTorch expression of x that gives the expected values. The list drives the conformance
// fixtures and cases (tests/conformance), the gradient fixtures, cases and finite differences
// (tests/autodiff) and the differential run on every backend (tests/differential). The fixture
// scripts read it through tests/support/registry.py, which draws each case's input from its own
// seed (the op's name), so adding a line leaves every other fixture as it was.
#include "domains.h"

/// X(op, Domain, "PyTorch expression of x") for every unary float op.
#define SCORCH_UNARY_CASES(X)            \
  X(exp, Normal, "torch.exp(x)")         \
  X(log, Positive, "torch.log(x)")       \
  X(log1p, Positive, "torch.log1p(x)")   \
  X(logit, Open01, "torch.logit(x)")     \
  X(sqrt, Positive, "torch.sqrt(x)")     \
  X(abs, NonZero, "torch.abs(x)")        \
  X(neg, Normal, "-x")                   \
  X(sign, NonZero, "torch.sign(x)")      \
  X(cos, Normal, "torch.cos(x)")         \
  X(sin, Normal, "torch.sin(x)")         \
  X(tan, Unit, "torch.tan(x)")           \
  X(cosh, Normal, "torch.cosh(x)")       \
  X(sinh, Normal, "torch.sinh(x)")       \
  X(tanh, Normal, "torch.tanh(x)")       \
  X(acos, Unit, "torch.acos(x)")         \
  X(acosh, AboveOne, "torch.acosh(x)")   \
  X(asin, Unit, "torch.asin(x)")         \
  X(asinh, Normal, "torch.asinh(x)")     \
  X(atan, Normal, "torch.atan(x)")       \
  X(atanh, Unit, "torch.atanh(x)")       \
  X(round, NonHalf, "torch.round(x)")    \
  X(floor, NonInteger, "torch.floor(x)") \
  X(ceil, NonInteger, "torch.ceil(x)")   \
  X(trunc, NonInteger, "torch.trunc(x)") \
  X(erf, Normal, "torch.erf(x)")         \
  X(recip, NonZero, "torch.reciprocal(x)")
