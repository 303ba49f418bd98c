// scorch_gradient_tests: every differentiable op's gradient against PyTorch and finite differences, compiled once
// for Autodiff<Dyn> and run on the stack --stack names (default cpu).
#include <gtest/gtest.h>

#include <iostream>

#include "conformance/require_device.h"
#include "support/stack_flag.h"

int main(int argc, char** argv) {
  if (scorch::testing::wants_help(argc, argv)) {
    scorch::testing::print_stack_help(
        "usage: scorch_gradient_tests [--stack NAME] [GoogleTest flags]\n"
        "Checks every differentiable op's gradient (f64) against PyTorch's and central finite differences, with and\n"
        "without gradient checkpointing, on Autodiff<Dyn> over the stack NAME (default: cpu).\n");
    return 0;
  }
  auto stacks = scorch::testing::take_stacks(argc, argv);
  std::string name = stacks.empty() ? "cpu" : stacks.back();
  try {
    auto choice = scorch::Dyn::parse(name);
    scorch::Dyn::set_default_device(choice.device);
    std::string why = choice.device.stack().unavailable();
    ::testing::AddGlobalTestEnvironment(
        new scorch::conformance::RequireDevice("gradient suite", [why] { return why; }));
  } catch (const scorch::Error& e) {
    std::cerr << "scorch_gradient_tests: " << e.what() << "\n";
    return 2;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
