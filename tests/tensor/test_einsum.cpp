// einsum: every case of fixtures/einsum.json (torch.einsum's values and gradients, fixtures/gen_einsum.py) through
// the planner and its runner on Cpu and Autodiff<Cpu> (values and gradients), then the Tensor API's two forms, the
// contraction order, and the errors (their exact first words).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <scorch/scorch.hpp>

#include "support/expect_error.h"

namespace scorch {
namespace {

using AD = Autodiff<Cpu>;
using scorch::testing::expect_error;

struct Operand {
  Shape shape;
  std::vector<double> values;
};

struct Case {
  std::string equation;
  std::vector<Operand> operands;
  Operand output;
  std::vector<double> weights;
  std::vector<std::vector<double>> grads;
};

Operand operand(const nlohmann::json& j) {
  return {Shape(j["shape"].get<std::vector<size_t>>()), j["values"].get<std::vector<double>>()};
}

std::vector<Case> cases() {
  // Found next to this file (no definition: this target owns the tests' precompiled header, which must not vary).
  std::ifstream file(std::filesystem::path(__FILE__).parent_path() / "fixtures" / "einsum.json");
  if (!file) throw std::runtime_error("test_einsum: fixtures/einsum.json not found next to " __FILE__);
  auto root = nlohmann::json::parse(file);
  std::vector<Case> out;
  for (const auto& c : root["cases"]) {
    Case k{c["equation"], {}, operand(c["output"]), c["weights"].get<std::vector<double>>(), {}};
    for (const auto& o : c["operands"]) k.operands.push_back(operand(o));
    for (const auto& g : c["grads"]) k.grads.push_back(g.get<std::vector<double>>());
    out.push_back(std::move(k));
  }
  return out;
}

/// A flat tensor of values on backend B (f64, so the comparison is with PyTorch's float64 values).
template <class B> Tensor<B, 1> flat(const std::vector<double>& values) {
  return Tensor<B, 1>::from_data(TensorData(values, Shape{values.size()}), {});
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-9 * (1 + std::abs(want[i]))) << what << "[" << i << "]";
}

std::vector<double> values(const auto& tensor) {
  return tensor.to_data().convert(DType::F64).template to_vector<double>();
}

/// Runs a case's plan on B's primitives (each operand a flat tensor reshaped to its shape); the output flattened.
template <class B> Tensor<B, 1> run_case(const Case& c, const std::vector<Tensor<B, 1>>& operands) {
  using O = KindOps<B, Float>;
  std::vector<Shape> shapes;
  std::vector<typename B::FloatTensor> primitives;
  for (size_t i = 0; i < operands.size(); ++i) {
    shapes.push_back(c.operands[i].shape);
    primitives.push_back(O::reshape(operands[i].primitive(), c.operands[i].shape));
  }
  auto plan = einsum_detail::plan(c.equation, shapes);
  EXPECT_EQ(plan.output, c.output.shape.rank() == 0 ? Shape{1} : c.output.shape) << c.equation;
  auto out = einsum_detail::run<B>(plan, std::move(primitives), {});
  return Tensor<B, 1>(O::reshape(std::move(out), Shape{plan.output.num_elements()}));
}

TEST(Einsum, MatchesTorchOnCpu) {
  for (const auto& c : cases()) {
    std::vector<Tensor<Cpu, 1>> operands;
    for (const auto& o : c.operands) operands.push_back(flat<Cpu>(o.values));
    expect_near(values(run_case<Cpu>(c, operands)), c.output.values, c.equation);
  }
}

TEST(Einsum, ValuesAndGradientsMatchTorchOnAutodiff) {
  for (const auto& c : cases()) {
    std::vector<Tensor<AD, 1>> operands;
    for (const auto& o : c.operands) operands.push_back(flat<AD>(o.values).require_grad());
    auto out = run_case<AD>(c, operands);
    expect_near(values(out), c.output.values, c.equation);
    auto grads = (out * flat<AD>(c.weights)).sum().backward();
    for (size_t i = 0; i < operands.size(); ++i) {
      auto g = operands[i].grad(grads);
      expect_near(g ? values(*g) : std::vector<double>(c.grads[i].size(), 0.0), c.grads[i],
                  c.equation + " d/d operand " + std::to_string(i));
    }
  }
}

TEST(Einsum, TensorApiBothForms) {
  auto q = Tensor<Cpu, 4>::random({2, 3, 5, 4}, Distribution::normal(0, 1));
  auto k = Tensor<Cpu, 4>::random({2, 3, 6, 4}, Distribution::normal(0, 1));
  auto scores = einsum<"bhqd,bhkd->bhqk">(q, k);
  static_assert(std::same_as<decltype(scores), Tensor<Cpu, 4>>);
  scores.to_data().assert_approx_eq(q.matmul(k.swap_dims(2, 3)).to_data(), Tolerance::rel_abs(1e-5, 1e-5));
  auto runtime = einsum<4>("bhqd,bhkd->bhqk", q, k);
  runtime.to_data().assert_approx_eq(scores.to_data(), Tolerance::rel_abs(0, 0));
  // A scalar output is [1]; the trace of the 3 × 3 ones is 3.
  auto trace = einsum<"ii">(Tensor<Cpu, 2>::ones({3, 3}));
  static_assert(std::same_as<decltype(trace), Tensor<Cpu, 1>>);
  EXPECT_EQ(trace.into_scalar().to_double(), 3.0);
  // "..." with broadcast dims, and the compile-time rank it implies.
  auto batched = einsum<"...ij,jk->...ik">(Tensor<Cpu, 4>::ones({2, 3, 4, 5}), Tensor<Cpu, 2>::ones({5, 6}));
  static_assert(std::same_as<decltype(batched), Tensor<Cpu, 4>>);
  EXPECT_EQ(batched.shape(), (Shape{2, 3, 4, 6}));
  EXPECT_EQ(batched.sum().into_scalar().to_double(), 2.0 * 3 * 4 * 6 * 5);
}

TEST(Einsum, ContractsThePairWithTheSmallestResultFirst) {
  // [2, 8] · [8, 1] · [1, 8] · [8, 3]: left to right makes a [2, 8] after two steps; the planner contracts the two
  // pairs of size [2, 1] and [1, 3] first.
  auto plan = einsum_detail::plan("ij,jk,kl,lm->im", {Shape{2, 8}, Shape{8, 1}, Shape{1, 8}, Shape{8, 3}});
  std::vector<Shape> contractions;
  for (const auto& s : plan.steps)
    if (s.kind == einsum_detail::Step::Kind::Contract) contractions.push_back(s.shape);
  EXPECT_EQ(contractions, (std::vector<Shape>{Shape{2, 1}, Shape{1, 3}, Shape{2, 3}}));
}

TEST(Einsum, ErrorsNameTheEquationAndShapes) {
  auto a = Tensor<Cpu, 2>::ones({2, 3});
  expect_error<ShapeError>([&] { einsum<2>("ij,jk->ik", a, a); },
                           "[einsum] 'ij,jk->ik' on operands [2, 3], [2, 3]: 'j' has sizes 3 and 2");
  expect_error<ValueError>([&] { einsum<2>("ij,jk->ii", a, a.transpose()); },
                           "[einsum] 'ij,jk->ii' on operands [2, 3], [3, 2]: the output repeats 'i'");
  expect_error<ValueError>([&] { einsum<2>("ij->iz", a); },
                           "[einsum] 'ij->iz' on operands [2, 3]: the output's 'z' is in no operand");
  expect_error<ValueError>([&] { einsum<2>("ij,jk->ik", a); },
                           "[einsum] 'ij,jk->ik' on operands [2, 3]: the equation names 2 operands, 1 were given");
  expect_error<ShapeError>([&] { einsum<2>("ijk->ij", a); },
                           "[einsum] 'ijk->ij' on operands [2, 3]: term 'ijk' of operand 0 names 3 dims, the operand "
                           "has rank 2");
  expect_error<ValueError>([&] { einsum<2>("i1->i", a); }, "[einsum] 'i1->i' on operands [2, 3]: term 'i1' holds '1'");
  expect_error<ShapeError>([&] { einsum<2>("ii->i", a); },
                           "[einsum] 'ii->i' on operands [2, 3]: 'i' is repeated in operand 0 with sizes 2 and 3");
  expect_error<ShapeError>([&] { einsum<1>("ij->ij", a); },
                           "[einsum] 'ij->ij' gives a result of shape [2, 3], not the rank 1 asked for (einsum<2>)");
  expect_error<ValueError>([&] { einsum<2>("ij->ij", Tensor<Cpu, 2>()); }, "[einsum] tensor is empty");
  auto f64 = Tensor<Cpu, 2>::full({3, 2}, Scalar(1), {}, DType::F64);
  expect_error<DTypeError>([&] { einsum<2>("ij,jk->ik", a, f64); }, "[einsum] lhs f32 and rhs f64: dtypes differ");
}

}  // namespace
}  // namespace scorch
