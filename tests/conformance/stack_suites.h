#pragma once
// The conformance suite on Dyn's stacks, chosen at run time (as ggml's test-backend-ops): for each stack named with
// --stack, one test per fixture (suite Conformance_<stack>), one per edge case (Edge_<stack>) and the coverage check
// (Coverage_<stack>). "autodiff<S>" runs the cases on Autodiff<Dyn> over S, float inputs requiring grad, and the
// edge sweep backpropagates every case. A stack that cannot run here gets one skipped test saying why.
#include <string>

#include "runner.h"

namespace scorch::conformance {

/// The cases on stack name ("cpu", "fusion<cpu>", "autodiff<cuda:0>", ...); a DeviceError for an unknown stack.
void register_stack_suites(const std::string& name);

}  // namespace scorch::conformance
