// Every layer, activation and loss against PyTorch: outputs, input gradients and parameter
// gradients of the fixture's weighted-sum loss (see nn_harness.h).
#include <gtest/gtest.h>

#include <cmath>

#include "nn_harness.h"

namespace scorch::nntest {
namespace {

const std::vector<NnFixture>& fixtures() {
  static const auto all = load_nn_fixtures(std::string(SCORCH_NN_FIXTURE_DIR) + "/nn.json");
  return all;
}
const CaseTable& cases() {
  static const CaseTable table = [] {
    CaseTable t;
    add_layer_cases(t);
    add_activation_cases(t);
    add_sequence_cases(t);
    add_loss_cases(t);
    return t;
  }();
  return table;
}
/// Field renames where a C++ member cannot take PyTorch-side name (a field `forward` would hide the method).
const std::map<std::string, std::vector<std::pair<std::string, std::string>>>& renames() {
  static const std::map<std::string, std::vector<std::pair<std::string, std::string>>> r{
      {"bilstm", {{"forward.", "forward_lstm."}, {"reverse.", "reverse_lstm."}}},
      {"bigru", {{"forward.", "forward_gru."}, {"reverse.", "reverse_gru."}}},
      {"birnn", {{"forward.", "forward_rnn."}, {"reverse.", "reverse_rnn."}}}};
  return r;
}
DataMap renamed(const std::string& name, const DataMap& in) {
  auto it = renames().find(name);
  if (it == renames().end()) return in;
  DataMap out;
  for (const auto& [original, value] : in) {
    std::string key = original;
    for (const auto& [from, to] : it->second)
      if (key.rfind(from, 0) == 0) key = to + key.substr(from.size());
    out[key] = value;
  }
  return out;
}

/// f32 results against float64 PyTorch.
constexpr Tolerance kTolerance{2e-3, 2e-4};

void expect_close(const TensorData& expected, const TensorData& actual, const std::string& what) {
  SCOPED_TRACE(what);
  auto e = expected.convert(DType::F64), a = actual.convert(DType::F64);
  ASSERT_EQ(e.shape().num_elements(), a.shape().num_elements())
      << "expected " << e.shape().to_string() << ", got " << a.shape().to_string();
  TensorData(e.to_vector<double>(), {e.shape().num_elements()})
      .assert_approx_eq(TensorData(a.to_vector<double>(), {a.shape().num_elements()}), kTolerance);
}

class NnFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NnFixtureTest, MatchesPyTorch) {
  const NnFixture* found = nullptr;
  for (const auto& f : fixtures()) found = f.name == GetParam() ? &f : found;
  ASSERT_NE(found, nullptr);
  NnFixture fx = *found;
  fx.params = renamed(fx.name, fx.params);
  fx.grads = renamed(fx.name, fx.grads);
  CaseInputs in(fx);
  CaseRun run = cases().at(fx.name)(in);
  ASSERT_EQ(run.outputs.size(), fx.outputs.size());
  for (size_t k = 0; k < fx.outputs.size(); ++k)
    expect_close(fx.outputs[k], run.outputs[k].to_data(), "output " + std::to_string(k));
  for (const auto& [name, data] : fx.extras) {
    ASSERT_TRUE(run.extras.count(name)) << "missing extra " << name;
    expect_close(data, run.extras.at(name), "extra " + name);
  }
  if (fx.grads.empty()) return;
  auto all = Tensor<AD, 1>::cat(run.outputs, 0);
  size_t n = all.shape()[0];
  std::vector<double> w(n);
  for (size_t k = 0; k < n; ++k) w[k] = std::sin(0.7 * static_cast<double>(k) + 0.3);
  auto weights = Tensor<AD, 1>::from_data(TensorData(w, {n}).convert(DType::F32));
  auto grads = (all * weights).sum().backward();
  auto param_grads = run.param_grads(grads);
  for (const auto& [key, expected] : fx.grads) {
    if (key.rfind("input.", 0) == 0) {
      const auto* leaf = in.leaf(std::stoul(key.substr(6)));
      ASSERT_NE(leaf, nullptr) << key;
      auto g = AD::grad(*leaf, grads);
      ASSERT_TRUE(g.has_value()) << "no gradient for " << key;
      expect_close(expected, Cpu::float_into_data(*g), "grad " + key);
    } else {
      ASSERT_TRUE(param_grads.count(key)) << "no gradient for parameter " << key;
      expect_close(expected, param_grads.at(key), "grad " + key);
    }
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& f : fixtures()) names.push_back(f.name);
  return names;
}
INSTANTIATE_TEST_SUITE_P(PyTorch, NnFixtureTest, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(NnFixtures, EveryFixtureHasACaseAndEveryCaseAFixture) {
  std::set<std::string> fixture_names;
  for (const auto& f : fixtures()) {
    fixture_names.insert(f.name);
    EXPECT_TRUE(cases().count(f.name)) << "no C++ case for fixture " << f.name;
  }
  for (const auto& [name, fn] : cases()) EXPECT_TRUE(fixture_names.count(name)) << "no fixture for case " << name;
}

}  // namespace
}  // namespace scorch::nntest
