// The conformance suite on the Cpu backend.
#include "runner.h"

namespace scorch::conformance {
namespace {

class CpuConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuConformance, MatchesPyTorch) { run_case<Cpu>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Fixtures, CpuConformance, ::testing::ValuesIn(fixture_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(CpuConformanceCoverage, EveryOpHasACaseAndEveryCaseAFixture) {
  auto [missing_ops, missing_fixtures] = coverage_gaps<Cpu>();
  std::string ops, cases;
  for (const auto& op : missing_ops) ops += " " + op;
  for (const auto& c : missing_fixtures) cases += " " + c;
  EXPECT_TRUE(missing_ops.empty()) << missing_ops.size() << " ops without a case:" << ops;
  EXPECT_TRUE(missing_fixtures.empty()) << "cases without a fixture:" << cases;
}

}  // namespace
}  // namespace scorch::conformance
