// The conformance suite on Router<Cpu, LibTorch>: every case runs through the router on the backend its default
// device names, Cpu (position 0) or, with SCORCH_CONFORMANCE_ROUTER_BACKEND=1, LibTorch (tests/CMakeLists.txt runs
// both), and gives PyTorch's values.
#include <cstdlib>
#include <string>

#include "runner.h"

namespace scorch::conformance {
namespace {

using CpuTorch = RouterCpuLibTorch;

/// Points the router's default device at the backend the environment names.
class RouterDefaultDevice : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* backend = std::getenv("SCORCH_CONFORMANCE_ROUTER_BACKEND");
    if (backend && std::string(backend) == "1") CpuTorch::set_default_device(CpuTorch::device<1>());
    else CpuTorch::set_default_device(CpuTorch::device<0>());
  }
};

const auto* const kDefaultDevice = ::testing::AddGlobalTestEnvironment(new RouterDefaultDevice);

SCORCH_CONFORMANCE_SUITE(RouterConformance, CpuTorch)
}  // namespace
}  // namespace scorch::conformance
