# The conformance suite's case files (SCORCH_CONFORMANCE_CASES, paths under tests/), for tests/CMakeLists.txt and
# the WebAssembly build's tests/wasm.
set(SCORCH_CONFORMANCE_CASES conformance/cases_creation.cpp conformance/cases_arith.cpp conformance/cases_unary.cpp
  conformance/cases_compare.cpp conformance/cases_reduce.cpp conformance/cases_layout.cpp conformance/cases_index.cpp
  conformance/cases_activation.cpp conformance/cases_composite.cpp conformance/cases_module.cpp
  conformance/cases_module_grad.cpp)
