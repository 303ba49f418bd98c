// scorch_conformance: the conformance suite (PyTorch's values) on the stacks the command line names, compiled once.
//   scorch_conformance --stack cpu --stack "autodiff<fusion<cpu>>" [--gtest_filter=...]
// A remote stack runs on a scorch-server over Cpu that this binary starts on loopback (tests/remote/server_process.h).
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "remote/server_process.h"
#include "stack_suites.h"
#include "support/stack_flag.h"

namespace {

constexpr const char* kUsage =
    "usage: scorch_conformance [--stack NAME]... [GoogleTest flags]\n"
    "Runs the conformance suite (fixtures from PyTorch, the edge sweep and the op coverage check) on each stack\n"
    "named (default: cpu). NAME is a Dyn stack: cpu, reference, fusion<cpu>, libtorch, vulkan:0, cuda:0,\n"
    "fusion<cuda:0>, remote, router<cpu,libtorch>:1 ...; autodiff<NAME> runs it through Autodiff with float inputs\n"
    "requiring grad.\n";

}  // namespace

int main(int argc, char** argv) {
  if (scorch::testing::wants_help(argc, argv)) {
    scorch::testing::print_stack_help(kUsage);
    return 0;
  }
  auto stacks = scorch::testing::take_stacks(argc, argv);
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
