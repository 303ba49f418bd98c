#pragma once
// Test binaries compiled once for Dyn choose their stacks on the command line (as ggml's test-backend-ops):
// --stack NAME (repeatable) or --stack=NAME, any name Dyn::parse reads ("cpu", "fusion<cpu>", "autodiff<cuda:0>").
#include <iostream>
#include <string>
#include <vector>

#include <scorch/dyn/dyn.h>

#include "scorch/core/cli.h"

namespace scorch::testing {

/// The stacks named by --stack NAME / --stack=NAME, removed from argv (GoogleTest reads the rest).
inline std::vector<std::string> take_stacks(int& argc, char** argv) {
  std::vector<std::string> stacks;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--stack" && i + 1 < argc) stacks.push_back(argv[++i]);
    else if (arg.starts_with("--stack=")) stacks.push_back(arg.substr(8));
    else argv[out++] = argv[i];
  }
  argc = out;
  return stacks;
}

/// Whether argv asks for --help (or -h).
inline bool wants_help(int argc, char** argv) { return cli::asks_help(argc, argv); }

/// Prints usage, then the stacks this build registers, then a pointer to GoogleTest's flags.
inline void print_stack_help(const char* usage) {
  std::cout << usage << "Stacks this build has:";
  for (const auto& key : Dyn::stacks()) std::cout << " " << key;
  std::cout << "\n\nGoogleTest's own flags follow (--gtest_help).\n";
}

}  // namespace scorch::testing
