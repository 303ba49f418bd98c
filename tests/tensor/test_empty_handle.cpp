// Empty tensor handles (default-constructed or moved from): every op kind throws "[op] tensor is empty ..." instead
// of reaching the backend, the handle reports shape [] and 0 values, and printing it says what it is.
#include <gtest/gtest.h>

#include <sstream>

#include <scorch/scorch.hpp>

namespace scorch {
namespace {

const std::string kEmpty = "tensor is empty (moved from or default-constructed)";

/// f throws ValueError whose message starts with "[op] tensor is empty (moved from or default-constructed)".
template <class F> void expect_empty_error(const std::string& op, F f) {
  try {
    f();
    ADD_FAILURE() << op << ": no error";
  } catch (const ValueError& e) { EXPECT_EQ(std::string(e.what()).rfind("[" + op + "] " + kEmpty, 0), 0u) << e.what(); }
}

template <class B> class EmptyHandle : public ::testing::Test {};
using Backends = ::testing::Types<Cpu, Autodiff<Cpu>>;
TYPED_TEST_SUITE(EmptyHandle, Backends);

TYPED_TEST(EmptyHandle, MovedFromReportsEmptyShape) {
  using T = Tensor<TypeParam, 2>;
  T a = T::ones({2, 3});
  T b = std::move(a);
  EXPECT_TRUE(a.is_empty());  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_EQ(a.shape(), Shape{});
  EXPECT_EQ(a.num_elements(), 0u);
  EXPECT_EQ(b.shape(), Shape({2, 3}));
  T c;
  c = std::move(b);
  EXPECT_TRUE(b.is_empty());
  EXPECT_FALSE(c.is_empty());
  EXPECT_TRUE(T().is_empty());
}

TYPED_TEST(EmptyHandle, ElementwiseOpsNameThemselves) {
  using T = Tensor<TypeParam, 2>;
  T empty, full = T::ones({2, 2});
  expect_empty_error("exp", [&] { (void)empty.exp(); });
  expect_empty_error("exp", [&] { (void)std::move(empty).exp(); });
  expect_empty_error("add", [&] { (void)(empty + full); });
  expect_empty_error("add", [&] { (void)(full + empty); });
  expect_empty_error("add_scalar", [&] { (void)empty.add_scalar(1.0); });
  expect_empty_error("add", [&] { (void)(empty + 1.0); });
  expect_empty_error("mul", [&] { (void)(empty * 2.0); });
  expect_empty_error("neg", [&] { (void)(-empty); });
  expect_empty_error("greater", [&] { (void)empty.greater(full); });
  expect_empty_error("clamp", [&] { (void)empty.clamp(0.0, 1.0); });
}

TYPED_TEST(EmptyHandle, ReductionsLayoutAndMatmul) {
  using T = Tensor<TypeParam, 2>;
  T empty, full = T::ones({2, 2});
  expect_empty_error("sum", [&] { (void)empty.sum(); });
  expect_empty_error("mean_dim", [&] { (void)empty.mean_dim(0); });
  expect_empty_error("argmax", [&] { (void)empty.argmax(1); });
  expect_empty_error("reshape", [&] { (void)empty.template reshape<1>({4}); });
  expect_empty_error("swap_dims", [&] { (void)empty.swap_dims(0, 1); });
  expect_empty_error("matmul", [&] { (void)empty.matmul(full); });
  expect_empty_error("matmul", [&] { (void)full.matmul(empty); });
}

TYPED_TEST(EmptyHandle, DataOutAndMetadata) {
  using T = Tensor<TypeParam, 2>;
  T empty;
  expect_empty_error("to_data", [&] { (void)empty.to_data(); });
  expect_empty_error("into_scalar", [&] { (void)empty.into_scalar(); });
  expect_empty_error("dtype", [&] { (void)empty.dtype(); });
  expect_empty_error("device", [&] { (void)empty.device(); });
  expect_empty_error("dims", [&] { (void)empty.dims(); });
  expect_empty_error("cast", [&] { (void)empty.cast(DType::F64); });
  expect_empty_error("zeros_like", [&] { (void)empty.zeros_like(); });
  std::ostringstream printed;
  printed << empty;
  EXPECT_EQ(printed.str(), "Tensor { empty (moved from or default-constructed) }");
}

TEST(EmptyHandle, IntAndBoolKinds) {
  Tensor<Cpu, 1, Int> ints;
  Tensor<Cpu, 1, Bool> mask;
  expect_empty_error("float_", [&] { (void)ints.float_(); });
  expect_empty_error("bool_not", [&] { (void)mask.bool_not(); });
}

TEST(EmptyHandle, AutodiffBackwardAndGrad) {
  using B = Autodiff<Cpu>;
  Tensor<B, 1> x = Tensor<B, 1>::ones({3}).require_grad();
  Tensor<B, 1> loss = (x * x).sum();
  Tensor<B, 1> taken = std::move(loss);
  expect_empty_error("backward", [&] { (void)loss.backward(); });
  auto grads = taken.backward();
  EXPECT_TRUE(x.grad(grads).has_value());
  expect_empty_error("require_grad", [&] { (void)Tensor<B, 1>().require_grad(); });
}

TEST(EmptyHandle, FunctionsNameTheOp) {
  Tensor<Cpu, 2> empty;
  expect_empty_error("relu", [&] { (void)activation::relu(empty); });
  expect_empty_error("softmax", [&] { (void)activation::softmax(empty, 1); });
}

TEST(EmptyHandle, MethodNameReadsCompilerSignatures) {
  EXPECT_EQ(check::method_name("scorch::Tensor<B, D, K> scorch::FloatMethods<B, D, K>::exp() const & [with B = "
                               "scorch::backends::cpu::Cpu; long unsigned int D = 2; K = scorch::Float]"),
            "exp");
  EXPECT_EQ(check::method_name("Self scorch::NumericMethods<scorch::Cpu, 2, scorch::Float>::sum_dim(size_t) const"),
            "sum_dim");
  EXPECT_EQ(check::method_name("scorch::Tensor<B, D, K> scorch::operator+(Tensor<B, D, K>, Scalar) [with B = X]"),
            "add");
  EXPECT_EQ(check::method_name("scorch::Tensor<B, D, K> scorch::operator-(Tensor<B, D, K>) [with B = X]"), "neg");
  EXPECT_EQ(check::method_name("auto scorch::operator<(const Tensor<B, D, K>&, const Tensor<B, D, K>&)"), "lower");
  EXPECT_EQ(check::method_name("void f()"), "f");
  EXPECT_EQ(check::method_name("exp"), "exp");  // __builtin_FUNCTION's forms
  EXPECT_EQ(check::method_name("reshape<1>"), "reshape");
  EXPECT_EQ(check::method_name("operator+<scorch::Cpu, 2, scorch::Float>"), "add");
  EXPECT_EQ(check::method_name("operator< <scorch::Cpu, 2, scorch::Float>"), "lower");
  EXPECT_EQ(check::method_name("Grads scorch::AutodiffMethods<B, D, K>::backward() const requires (AutodiffBackend<B>) "
                               "&& (FloatKind<K>) [with B = X]"),
            "backward");
  EXPECT_EQ(check::method_name("no parentheses"), "no parentheses");
}

}  // namespace
}  // namespace scorch
