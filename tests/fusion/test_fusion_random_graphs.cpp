// The fusion fuzzer on Fusion<Cpu>: random graphs (tests/fusion/random_graph.h) run fused and on Cpu in lockstep
// and must agree bit for bit (Cpu's fused blocks run Cpu's own kernels). It runs SCORCH_FUSION_FUZZ_SECONDS
// (default 2) in CI; set it higher, and SCORCH_FUSION_FUZZ_SEED, to explore.
#include <gtest/gtest.h>

#include <scorch/stacks/fusion_cpu/autodiff.h>

#include "fusion/random_graph.h"

namespace scorch::testing {
namespace {

TEST(FusionFuzz, RandomGraphsAgreeWithCpu) {
  auto before = FusionCpu::stats();
  fuzz_random_graphs<FusionCpu, Cpu>(CpuDevice{});
  auto after = FusionCpu::stats();
  EXPECT_GT(after.fused_programs, before.fused_programs);  // some graphs ran blocked
  std::printf("fusion fuzz: %zu programs (%zu fused)\n", after.programs - before.programs,
              after.fused_programs - before.fused_programs);
}

}  // namespace
}  // namespace scorch::testing
