#pragma once
// Runs every fixture case on backend B as one value-parameterized GoogleTest each, plus the
// coverage check: every op of op_table.txt has a case, every case a fixture and vice versa.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "harness.h"
#include "scorch/gen/op_info.h"

namespace scorch::conformance {

inline const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = load_fixtures(SCORCH_FIXTURE_DIR "/conformance.json");
  return all;
}

inline std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  for (const auto& f : fixtures()) names.push_back(f.name);
  return names;
}

template <class B> void run_case(const std::string& name) {
  static const CaseList<B> list = all_cases<B>();
  const auto& fx = fixtures();
  auto f = std::find_if(fx.begin(), fx.end(), [&](const Fixture& x) { return x.name == name; });
  auto c = std::find_if(list.cases.begin(), list.cases.end(), [&](const Case<B>& x) { return x.name == name; });
  ASSERT_NE(c, list.cases.end()) << "fixture " << name << " has no C++ case";
  auto actual = c->run(Inputs<B>{f->inputs});
  ASSERT_EQ(actual.size(), f->outputs.size()) << "case " << name << " produced the wrong number of outputs";
  for (size_t i = 0; i < actual.size(); ++i) {
    try {
      expect_match(f->outputs[i], actual[i], f->tolerance);
    } catch (const AssertionError& e) { ADD_FAILURE() << name << " output " << i << ": " << e.what(); }
  }
}

/// Ops of the table that no case covers, and cases with no fixture.
template <class B> std::pair<std::vector<std::string>, std::vector<std::string>> coverage_gaps() {
  CaseList<B> list = all_cases<B>();
  std::set<std::string> covered;
  for (const auto& c : list.cases) covered.insert(c.covers.begin(), c.covers.end());
  std::vector<std::string> missing_ops, missing_fixtures;
  for (auto op : kOpNames)
    if (!covered.count(std::string(op))) missing_ops.emplace_back(op);
  auto names = fixture_names();
  for (const auto& c : list.cases)
    if (std::find(names.begin(), names.end(), c.name) == names.end()) missing_fixtures.push_back(c.name);
  for (const auto& c : list.cases)
    for (const auto& op : c.covers)
      if (std::find(kOpNames.begin(), kOpNames.end(), op) == kOpNames.end())
        missing_fixtures.push_back(c.name + " covers unknown op " + op);
  return {missing_ops, missing_fixtures};
}

}  // namespace scorch::conformance

/// The conformance suite on Backend: one test per fixture, plus the coverage check.
#define SCORCH_CONFORMANCE_SUITE(Suite, Backend)                                                          \
  class Suite : public ::testing::TestWithParam<std::string> {};                                          \
  TEST_P(Suite, MatchesPyTorch) { ::scorch::conformance::run_case<Backend>(GetParam()); }                 \
  INSTANTIATE_TEST_SUITE_P(Fixtures, Suite, ::testing::ValuesIn(::scorch::conformance::fixture_names()),  \
                           [](const ::testing::TestParamInfo<std::string>& info) { return info.param; }); \
  TEST(Suite##Coverage, EveryOpHasACaseAndEveryCaseAFixture) {                                            \
    auto [missing_ops, missing_fixtures] = ::scorch::conformance::coverage_gaps<Backend>();               \
    std::string ops, cases;                                                                               \
    for (const auto& op : missing_ops) ops += " " + op;                                                   \
    for (const auto& c : missing_fixtures) cases += " " + c;                                              \
    EXPECT_TRUE(missing_ops.empty()) << missing_ops.size() << " ops without a case:" << ops;              \
    EXPECT_TRUE(missing_fixtures.empty()) << "cases without a fixture:" << cases;                         \
  }
