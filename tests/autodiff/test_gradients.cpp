// Every gradient case against PyTorch's gradients and central finite differences (f64), with
// and without BalancedCheckpointing; plus the coverage check over op_table.txt.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "conformance/harness.h"
#include "grad_harness.h"
#include "scorch/gen/op_info.h"

namespace scorch::gradcheck {
namespace {

struct GradFixture {
  std::vector<TensorData> inputs, grads;
  TensorData output;
};

const std::map<std::string, GradFixture>& fixtures() {
  static const std::map<std::string, GradFixture> all = [] {
    std::ifstream file(SCORCH_GRAD_FIXTURES);
    if (!file) throw IoError("gradients", "cannot open " SCORCH_GRAD_FIXTURES);
    std::map<std::string, GradFixture> out;
    for (const auto& c : nlohmann::json::parse(file)) {
      GradFixture f;
      for (const auto& t : c.at("inputs")) f.inputs.push_back(conformance::decode_tensor(t));
      for (const auto& t : c.at("grads")) f.grads.push_back(conformance::decode_tensor(t));
      f.output = conformance::decode_tensor(c.at("output"));
      out.emplace(c.at("name").get<std::string>(), std::move(f));
    }
    return out;
  }();
  return all;
}

const std::vector<GradCase>& cases() {
  static const std::vector<GradCase> all = all_grad_cases();
  return all;
}

const GradCase& find_case(const std::string& name) {
  for (const auto& c : cases())
    if (c.name == name) return c;
  throw ValueError("gradients", "no case " + name);
}

/// Σ_k out_k · sin(0.7k + 0.3).
Tensor<AD, 1> weighted_loss(const Tensor<AD, 1>& out) {
  size_t n = out.dims()[0];
  std::vector<double> w(n);
  for (size_t k = 0; k < n; ++k) w[k] = std::sin(0.7 * static_cast<double>(k) + 0.3);
  auto weights = Tensor<AD, 1>::from_data(TensorData(w, Shape{n})).cast(out.dtype());
  return out.mul(weights).sum();
}

double loss_at(const GradCase& c, const std::vector<TensorData>& inputs) {
  GradInputs in(inputs);
  return weighted_loss(c.fn(in)).into_scalar().to_double();
}

/// Central differences of the loss for every element of float input k.
std::vector<double> finite_difference(const GradCase& c, const std::vector<TensorData>& inputs, size_t k) {
  const double h = 1e-6;
  std::vector<double> values = inputs[k].to_vector<double>(), grad(values.size());
  for (size_t j = 0; j < values.size(); ++j) {
    auto shifted = inputs;
    std::vector<double> v = values;
    v[j] = values[j] + h;
    shifted[k] = TensorData(v, inputs[k].shape());
    double up = loss_at(c, shifted);
    v[j] = values[j] - h;
    shifted[k] = TensorData(v, inputs[k].shape());
    grad[j] = (up - loss_at(c, shifted)) / (2 * h);
  }
  return grad;
}

struct Param {
  std::string name;
  bool checkpointing;
};
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.name << (p.checkpointing ? " (balanced checkpointing)" : " (no checkpointing)");
}

class Gradients : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    if (GetParam().checkpointing) AD::set_checkpointing(BalancedCheckpointing{2});
  }
  void TearDown() override { AD::reset_checkpointing(); }
};

TEST_P(Gradients, MatchPyTorchAndFiniteDifferences) {
  const auto& fx = fixtures().at(GetParam().name);
  const GradCase& c = find_case(GetParam().name);
  GradInputs in(fx.inputs);
  auto out = c.fn(in);
  conformance::expect_match(fx.output, out.to_data(), Tolerance{1e-9, 1e-10});
  auto grads = weighted_loss(out).backward();
  ASSERT_EQ(in.float_inputs().size(), fx.grads.size()) << "float inputs vs fixture gradients";
  for (size_t n = 0; n < fx.grads.size(); ++n) {
    size_t k = in.float_inputs()[n];
    auto g = AD::grad(in.leaf(k), grads);
    TensorData actual =
        g ? KindOps<Dyn, Float>::into_data(*g)
          : TensorData(std::vector<double>(fx.inputs[k].shape().num_elements(), 0.0), fx.inputs[k].shape());
    try {
      conformance::expect_match(fx.grads[n], actual, Tolerance{1e-8, 1e-10});
    } catch (const AssertionError& e) { ADD_FAILURE() << "input " << k << " vs PyTorch: " << e.what(); }
    TensorData numeric(finite_difference(c, fx.inputs, k), fx.inputs[k].shape());
    try {
      conformance::expect_match(numeric, actual.convert(DType::F64), Tolerance{1e-5, 1e-6});
    } catch (const AssertionError& e) { ADD_FAILURE() << "input " << k << " vs finite differences: " << e.what(); }
  }
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const auto& [name, fixture] : fixtures()) {
    out.push_back({name, false});
    out.push_back({name, true});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Cases, Gradients, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return info.param.name + (info.param.checkpointing ? "_balanced" : "_plain");
                         });

TEST(GradientCoverage, EveryDifferentiableOpHasACaseAndEveryCaseAFixture) {
  std::set<std::string> covered, skip(non_differentiable_ops().begin(), non_differentiable_ops().end());
  for (const auto& c : cases()) {
    covered.insert(c.covers.begin(), c.covers.end());
    EXPECT_TRUE(fixtures().count(c.name)) << "case " << c.name << " has no fixture";
    for (const auto& op : c.covers)
      EXPECT_NE(std::find(kOpNames.begin(), kOpNames.end(), op), kOpNames.end())
          << c.name << " covers unknown op " << op;
  }
  for (const auto& [name, f] : fixtures()) EXPECT_NO_THROW(find_case(name)) << "fixture " << name << " has no case";
  for (auto op : kOpNames) {
    std::string name(op);
    bool differentiable = (name.rfind("float_", 0) == 0 || name.rfind("module_", 0) == 0) && !skip.count(name);
    if (differentiable) { EXPECT_TRUE(covered.count(name)) << name << " has no gradient case"; }
  }
}

}  // namespace
}  // namespace scorch::gradcheck
