#pragma once
// Runs every fixture case on backend B as one value-parameterized GoogleTest each, plus the
// coverage check: every op of op_table.txt has a case, every case a fixture and vice versa.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "harness.h"
#include "scorch/gen/op_info.h"

namespace scorch::conformance {

inline const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = load_fixtures(SCORCH_FIXTURE_DIR "/conformance.json");
  return all;
}
/// The edge sweep's fixtures: "<case>@<variant>" (tests/conformance/edge_variants.py).
inline const std::vector<Fixture>& edge_fixtures() {
  static const std::vector<Fixture> all = load_fixtures(SCORCH_FIXTURE_DIR "/edge.json");
  return all;
}

inline std::vector<std::string> names_of(const std::vector<Fixture>& fixtures) {
  std::vector<std::string> names;
  for (const auto& f : fixtures) names.push_back(f.name);
  return names;
}
inline std::vector<std::string> fixture_names() { return names_of(fixtures()); }
/// GoogleTest's parameter names allow only [A-Za-z0-9_]: "case@variant" becomes "case_at_variant".
inline std::string test_name(const std::string& name) {
  auto at = name.find('@');
  return at == std::string::npos ? name : name.substr(0, at) + "_at_" + name.substr(at + 1);
}

/// The key of the Dyn stack the running case is on ("cuda", "fusion<cuda>", ...); empty on a static backend.
inline std::string& current_stack_key() {
  static std::string key;
  return key;
}

/// Edge cases where the running stack's non-finite values may sit elsewhere than PyTorch's CPU ones: cuDNN's
/// convolution algorithms (FFT, Winograd, split sums) combine NaN and ±inf inputs in another order, so a
/// value may be NaN on one side and finite or inf on the other. Every value finite on both sides must match
/// (and there are such values: the cases put NaN and ±inf in the first elements only).
inline bool nonfinite_spreads(const std::string& name) {
  bool cudnn_conv = name.starts_with("mod_conv") && name.ends_with("@special");
  const std::string& key = current_stack_key();
  if (key == "cuda" || key == "fusion<cuda>") return cudnn_conv;
  // Remote runs the cases on the backend its test server was started with (tests/remote/server_process.h).
  const char* server = std::getenv("SCORCH_TEST_SERVER_BACKEND");
  if (key == "remote") return cudnn_conv && server && std::string(server) == "cuda";
  return false;
}

/// Runs the case a fixture names (its base case for an edge variant) and compares its outputs.
template <class B> void run_fixture(const Fixture& f) {
  static const CaseList<B> list = all_cases<B>();
  std::string base = f.name.substr(0, f.name.find('@'));
  bool strided = f.name.ends_with("@strided");
  auto c = std::find_if(list.cases.begin(), list.cases.end(), [&](const Case<B>& x) { return x.name == base; });
  ASSERT_NE(c, list.cases.end()) << "fixture " << f.name << " has no C++ case";
  if (f.error) {
    try {
      c->run(Inputs<B>{f.inputs, strided});
      EXPECT_TRUE(f.lenient) << f.name << ": no error, but PyTorch raises: " << f.torch_error;
    } catch (const Error&) {}
    return;
  }
  BackwardProbe<B> probe;
  bool edge = f.name.find('@') != std::string::npos;
  if (edge) BackwardProbe<B>::active() = &probe;
  std::vector<TensorData> actual;
  try {
    actual = c->run(Inputs<B>{f.inputs, strided});
  } catch (...) {
    BackwardProbe<B>::active() = nullptr;
    throw;
  }
  BackwardProbe<B>::active() = nullptr;
  if (edge) {
    try {
      probe.check();
    } catch (const std::exception& e) { ADD_FAILURE() << f.name << " backward: " << e.what(); }
  }
  ASSERT_EQ(actual.size(), f.outputs.size()) << "case " << f.name << " produced the wrong number of outputs";
  for (size_t i = 0; i < actual.size(); ++i) {
    try {
      expect_match(f.outputs[i], actual[i], f.tolerance, nonfinite_spreads(f.name));
    } catch (const AssertionError& e) { ADD_FAILURE() << f.name << " output " << i << ": " << e.what(); }
  }
}

template <class B> void run_named(const std::vector<Fixture>& fx, const std::string& name) {
  auto f = std::find_if(fx.begin(), fx.end(), [&](const Fixture& x) { return x.name == name; });
  ASSERT_NE(f, fx.end()) << "no fixture " << name;
  run_fixture<B>(*f);
}

/// The edge sweep's cases: edge.json's, and "<case>@strided" for every conformance case with inputs.
inline std::vector<std::string> edge_names() {
  auto names = names_of(edge_fixtures());
  for (const auto& f : fixtures())
    if (!f.inputs.empty()) names.push_back(f.name + "@strided");
  return names;
}

/// Runs an edge case: "<case>@strided" is the conformance fixture with strided inputs.
template <class B> void run_edge(const std::string& name) {
  if (!name.ends_with("@strided")) return run_named<B>(edge_fixtures(), name);
  std::string base = name.substr(0, name.size() - std::string("@strided").size());
  const auto& fx = fixtures();
  auto f = std::find_if(fx.begin(), fx.end(), [&](const Fixture& x) { return x.name == base; });
  ASSERT_NE(f, fx.end()) << "no fixture " << base;
  Fixture strided = *f;
  strided.name = name;
  run_fixture<B>(strided);
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

/// The conformance suite on a static Backend (the WebAssembly build's Cpu; natively, stack_suites.h registers it on
/// Dyn's stacks): one test per fixture, plus the coverage check; Suite##Edge runs the edge sweep (edge.json).
#define SCORCH_CONFORMANCE_SUITE(Suite, Backend)                                                                       \
  class Suite : public ::testing::TestWithParam<std::string> {};                                                       \
  TEST_P(Suite, MatchesPyTorch) {                                                                                      \
    ::scorch::conformance::run_named<Backend>(::scorch::conformance::fixtures(), GetParam());                          \
  }                                                                                                                    \
  INSTANTIATE_TEST_SUITE_P(Fixtures, Suite, ::testing::ValuesIn(::scorch::conformance::fixture_names()),               \
                           [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });              \
  class Suite##Edge : public ::testing::TestWithParam<std::string> {};                                                 \
  TEST_P(Suite##Edge, MatchesPyTorch) { ::scorch::conformance::run_edge<Backend>(GetParam()); }                        \
  INSTANTIATE_TEST_SUITE_P(                                                                                            \
      Fixtures, Suite##Edge, ::testing::ValuesIn(::scorch::conformance::edge_names()),                                 \
      [](const ::testing::TestParamInfo<std::string>& info) { return ::scorch::conformance::test_name(info.param); }); \
  TEST(Suite##Coverage, EveryOpHasACaseAndEveryCaseAFixture) {                                                         \
    auto [missing_ops, missing_fixtures] = ::scorch::conformance::coverage_gaps<Backend>();                            \
    std::string ops, cases;                                                                                            \
    for (const auto& op : missing_ops) ops += " " + op;                                                                \
    for (const auto& c : missing_fixtures) cases += " " + c;                                                           \
    EXPECT_TRUE(missing_ops.empty()) << missing_ops.size() << " ops without a case:" << ops;                           \
    EXPECT_TRUE(missing_fixtures.empty()) << "cases without a fixture:" << cases;                                      \
  }
