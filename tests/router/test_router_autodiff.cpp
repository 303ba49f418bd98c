// Autodiff<Router<Cpu, Cpu>> trains a model split across the router's two backends (the first layer on device 0, the
// second on device 1, the activations moved between them by to_device): the losses equal Autodiff<Cpu>'s for the
// same seed, data and steps, and each parameter stays on its device.
#include <gtest/gtest.h>

#include <scorch/scorch.hpp>

#include "router_stack.h"
#include "split_model.h"

namespace scorch {
namespace {

TEST(RouterAutodiff, TrainsAModelSplitAcrossBackendsWithCpusLosses) {
  using AD = Autodiff<RouterCpuCpu>;
  using testing::split_losses;
  auto routed = split_losses<AD>(5, RouterCpuCpu::device<0>(), RouterCpuCpu::device<1>());
  auto local = split_losses<Autodiff<Cpu>>(5, CpuDevice{}, CpuDevice{});
  ASSERT_EQ(routed.size(), local.size());
  for (size_t i = 0; i < local.size(); ++i) EXPECT_DOUBLE_EQ(routed[i], local[i]) << "step " << i;
  EXPECT_LT(routed.back(), routed.front());
}

}  // namespace
}  // namespace scorch
