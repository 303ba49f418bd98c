// Checks of the harness itself: the edge sweep's backward probe on Autodiff<Dyn>, and the Reference stack's premise
// (it binds no provided op, so its conformance run checks backend/provided's defaults).
#include <gtest/gtest.h>

#include <scorch/backends/reference/reference_backend.h>

#include "runner.h"

namespace scorch::conformance {
namespace {

// Reference binds no provided op itself (gelu, zeros and swap_dims are provided; exp is required).
template <class B> concept BindsGelu = requires { &B::float_gelu; };
template <class B> concept BindsZeros = requires { &B::int_zeros; };
template <class B> concept BindsSwapDims = requires { &B::float_swap_dims; };
template <class B> concept BindsExp = requires { &B::float_exp; };
static_assert(!BindsGelu<Reference> && !BindsZeros<Reference> && !BindsSwapDims<Reference> && BindsExp<Reference>);
static_assert(BindsGelu<Cpu> && BindsSwapDims<Cpu>, "Cpu binds its own kernels for these provided ops");

using AD = Autodiff<Dyn>;

// The backward probe sees a case's float leaves and outputs, and its check fails on a gradient of the wrong shape.
TEST(BackwardProbeCheck, CollectsLeavesAndChecksGradientShapes) {
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

TEST(BackwardProbeCheck, EmptyOutputsNeedZeroGradients) {
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
