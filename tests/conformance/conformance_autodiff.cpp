// The conformance suite on Autodiff<Cpu>, float inputs requiring grad: every op's forward
// through the recording path matches PyTorch.
#include "runner.h"

namespace scorch::conformance {
namespace {

using AD = Autodiff<Cpu>;

class AutodiffConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(AutodiffConformance, MatchesPyTorch) { run_case<AD>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Fixtures, AutodiffConformance, ::testing::ValuesIn(fixture_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(AutodiffConformanceCoverage, EveryOpHasACase) {
  auto [missing_ops, missing_fixtures] = coverage_gaps<AD>();
  EXPECT_TRUE(missing_ops.empty()) << missing_ops.size() << " ops without a case";
  EXPECT_TRUE(missing_fixtures.empty()) << "cases without a fixture";
}

}  // namespace
}  // namespace scorch::conformance
