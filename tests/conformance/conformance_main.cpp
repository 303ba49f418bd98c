// scorch_conformance: the conformance suite (PyTorch's values) on the stacks the command line names, compiled once.
//   scorch_conformance --stack cpu --stack "autodiff<fusion<cpu>>" [--gtest_filter=...]
// A remote stack runs on a scorch-server over Cpu that this binary starts on loopback (tests/remote/server_process.h).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "remote/server_process.h"
#include "stack_suites.h"

namespace {

constexpr const char* kUsage =
    "usage: scorch_conformance [--stack NAME]... [GoogleTest flags]\n"
    "Runs the conformance suite (fixtures from PyTorch, the edge sweep and the op coverage check) on each stack\n"
    "named (default: cpu). NAME is a Dyn stack: cpu, reference, fusion<cpu>, libtorch, vulkan:0, cuda:0,\n"
    "fusion<cuda:0>, remote, router<cpu,libtorch>:1 ...; autodiff<NAME> runs it through Autodiff with float inputs\n"
    "requiring grad. Stacks this build has: ";

/// The stacks named by --stack NAME / --stack=NAME, removed from argv.
std::vector<std::string> take_stacks(int& argc, char** argv) {
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

bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (wants_help(argc, argv)) {
    std::cout << kUsage;
    for (const auto& key : scorch::Dyn::stacks()) std::cout << key << " ";
    std::cout << "\n\nGoogleTest's own flags follow (--gtest_help).\n";
    return 0;
  }
  auto stacks = take_stacks(argc, argv);
  if (stacks.empty()) stacks.push_back("cpu");
  std::unique_ptr<scorch::testing::ServerProcess> server;
  try {
    for (const auto& name : stacks) {
      if (name.find("remote") != std::string::npos && !server) {
        server = std::make_unique<scorch::testing::ServerProcess>("conformance-token");
        setenv("SCORCH_REMOTE_ENDPOINT", server->endpoint().c_str(), 1);
        setenv("SCORCH_REMOTE_TOKEN", "conformance-token", 1);
      }
      scorch::conformance::register_stack_suites(name);
    }
  } catch (const std::exception& e) {  // an unknown stack, or a server that did not start
    std::cerr << "scorch_conformance: " << e.what() << "\n";
    return 2;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
