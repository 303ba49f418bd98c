// The differential target: every case on every backend against LibTorch, forward values and (for
// differentiable ops) gradients, plus the check that every op of op_table.txt has a case.
// SCORCH_DIFF_SEED=<n> changes the base seed; SCORCH_DIFF_ROUNDS=<n> draws n input sets per case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "diff_harness.h"
#include "scorch/gen/op_info.h"
#include "scorch/core/rng.h"

namespace scorch::differential {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 0) : fallback;
}

uint64_t case_seed(const std::string& name, uint64_t base) {
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return mix64(h ^ base);
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : all_cases()) names.push_back(c.name);
  return names;
}

/// Runs runner, turning an exception into a failure message.
std::optional<RunResult> attempt(const Runner& runner, const DiffCase& c, const std::vector<TensorData>& data,
                                 uint64_t seed, std::string& error) {
  try {
    return runner(c.inputs, data, seed);
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

void compare_runs(const DiffCase& c, const std::string& what, const std::string& backend, const RunResult& oracle,
                  const RunResult& actual, const std::string& context) {
  ASSERT_EQ(oracle.outputs.size(), actual.outputs.size()) << context;
  for (size_t k = 0; k < oracle.outputs.size(); ++k)
    if (auto diff = compare(oracle.outputs[k], actual.outputs[k], c.options))
      ADD_FAILURE() << context << "\n  " << what << " output " << k << " on " << backend << ": " << *diff;
  ASSERT_EQ(oracle.grads.size(), actual.grads.size()) << context;
  for (size_t k = 0; k < oracle.grads.size(); ++k) {
    const auto &e = oracle.grads[k], &a = actual.grads[k];
    if (e.has_value() != a.has_value()) {
      ADD_FAILURE() << context << "\n  gradient of input " << k << " on " << backend << ": "
                    << (a ? "present" : "missing") << ", libtorch " << (e ? "has one" : "has none");
    } else if (e) {
      // Backward passes accumulate (sums, scatters): Cpu rounds f16/bf16 at each step, LibTorch once.
      CaseOptions options = c.options;
      if (e->dtype() == DType::F16 || e->dtype() == DType::BF16) options.tol_scale *= 4;
      if (auto diff = compare(*e, *a, options))
        ADD_FAILURE() << context << "\n  gradient of input " << k << " on " << backend << ": " << *diff;
    }
  }
}

void run_case(const DiffCase& c, uint64_t seed) {
  std::vector<TensorData> data;
  for (size_t i = 0; i < c.inputs.size(); ++i) data.push_back(generate(c.inputs[i], seed + 7919 * i));
  std::string context = "case " + c.name + " (covers " +
                        [&] {
                          std::string s;
                          for (const auto& op : c.covers) s += (s.empty() ? "" : ", ") + op;
                          return s;
                        }() +
                        "), seed " + std::to_string(seed) + ", inputs: " + describe_inputs(c.inputs);
  bool any_grad = c.options.grad && std::any_of(c.inputs.begin(), c.inputs.end(),
                                                [](const InputSpec& s) { return s.grad && is_float(s.dtype); });
  for (int pass = 0; pass < (any_grad ? 2 : 1); ++pass) {
    const auto& runners = pass == 0 ? c.runners.forward : c.runners.gradient;
    const char* what = pass == 0 ? "forward" : "autodiff";
    std::string oracle_error;
    auto oracle = attempt(runners[0], c, data, seed, oracle_error);
    for (size_t b = 1; b < runners.size(); ++b) {
      std::string error;
      auto actual = attempt(runners[b], c, data, seed, error);
      if (!oracle || !actual) {
        if (!oracle && !actual) continue;  // both reject the input
        ADD_FAILURE() << context << "\n  " << what << ": " << (oracle ? c.runners.names[b] : c.runners.names[0])
                      << " threw: " << (oracle ? error : oracle_error);
        continue;
      }
      compare_runs(c, what, c.runners.names[b], *oracle, *actual, context);
    }
  }
}

class Differential : public ::testing::TestWithParam<std::string> {};

TEST_P(Differential, MatchesLibTorch) {
  const auto& cases = all_cases();
  auto c = std::find_if(cases.begin(), cases.end(), [&](const DiffCase& x) { return x.name == GetParam(); });
  ASSERT_NE(c, cases.end());
  uint64_t base = env_or("SCORCH_DIFF_SEED", 20261122), rounds = env_or("SCORCH_DIFF_ROUNDS", 1);
  for (uint64_t r = 0; r < rounds; ++r) run_case(*c, case_seed(c->name, base + r));
}

INSTANTIATE_TEST_SUITE_P(Ops, Differential, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(DifferentialCoverage, EveryOpOfTheTableHasACase) {
  std::set<std::string> covered;
  for (const auto& c : all_cases()) covered.insert(c.covers.begin(), c.covers.end());
  std::string missing;
  for (auto op : kOpNames)
    if (!covered.count(std::string(op))) missing += " " + std::string(op);
  EXPECT_TRUE(missing.empty()) << "ops without a differential case:" << missing;
  for (const auto& op : covered)
    EXPECT_NE(std::find(kOpNames.begin(), kOpNames.end(), op), kOpNames.end())
        << "a case covers " << op << ", which is not in op_table.txt";
}

}  // namespace
}  // namespace scorch::differential
