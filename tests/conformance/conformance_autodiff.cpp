// The conformance suite on Autodiff<Cpu>, float inputs requiring grad: every op's forward
// through the recording path matches PyTorch; the edge sweep also backpropagates every case.
#include "runner.h"

namespace scorch::conformance {
namespace {
SCORCH_CONFORMANCE_SUITE(AutodiffConformance, Autodiff<Cpu>)

using AD = Autodiff<Cpu>;

// The edge sweep's backward probe sees a case's float leaves and outputs, and its check fails on a
// gradient of the wrong shape.
TEST(AutodiffEdgeProbe, CollectsLeavesAndChecksGradientShapes) {
  std::vector<TensorData> data{TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3})};
  for (bool add_failing_check : {false, true}) {
    BackwardProbe<AD> probe;
    BackwardProbe<AD>::active() = &probe;
    auto x = F<2>(Inputs<AD>{data}, 0);
    outs(x.exp(), x.sum_dim(1));
    BackwardProbe<AD>::active() = nullptr;
    EXPECT_EQ(probe.leaf_checks.size(), 1u);
    ASSERT_TRUE(probe.total.has_value());
    EXPECT_FALSE(probe.outputs_empty);
    if (!add_failing_check) {
      EXPECT_NO_THROW(probe.check());
      continue;
    }
    probe.leaf_checks.push_back([&](const GradientsOf<AD>& grads, bool) {
      throw AssertionError("edge backward", "a check saw the gradient " + x.grad(grads)->shape().to_string());
    });
    EXPECT_THROW(probe.check(), AssertionError);
  }
}

TEST(AutodiffEdgeProbe, EmptyOutputsNeedZeroGradients) {
  std::vector<TensorData> data{TensorData(std::vector<float>{1, 2, 3}, Shape{3})};
  BackwardProbe<AD> probe;
  BackwardProbe<AD>::active() = &probe;
  auto x = F<1>(Inputs<AD>{data}, 0);
  outs(x.slice_dim(0, Slice(0, 0)) * 2.0);
  BackwardProbe<AD>::active() = nullptr;
  EXPECT_TRUE(probe.outputs_empty);
  EXPECT_NO_THROW(probe.check());
}
}  // namespace
}  // namespace scorch::conformance
