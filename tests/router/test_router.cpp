// Router<Cpu, Cpu>: two backends (by position) as one: ops run where their operands are, mixing backends in one op
// is a DeviceError naming both, to_device moves tensors between them, and results match the Cpu backend's.
#include <gtest/gtest.h>

#include <scorch/router/router.h>
#include <scorch/scorch.hpp>

namespace scorch {
namespace {

using Two = Router<Cpu, Cpu>;
template <size_t D, class K = Float> using RT = Tensor<Two, D, K>;

TEST(Router, NamesItsBackendsAndDevices) {
  EXPECT_EQ(Two::name(), "router<cpu,cpu>");
  EXPECT_EQ(Two::device<0>().backend(), 0u);
  EXPECT_EQ(Two::device<1>().backend(), 1u);
  EXPECT_FALSE(Two::device<0>() == Two::device<1>());
  EXPECT_NE(Two::device<1>().to_string().find("cpu"), std::string::npos);
}

TEST(Router, OpsRunWhereTheirOperandsAreAndMatchCpu) {
  auto x = Tensor<Cpu, 2>::random({3, 4}, Distribution::normal(0, 1));
  auto w = Tensor<Cpu, 2>::random({4, 5}, Distribution::normal(0, 1));
  for (auto device : {Two::device<0>(), Two::device<1>()}) {
    auto rx = RT<2>::from_data(x.to_data(), device), rw = RT<2>::from_data(w.to_data(), device);
    auto y = (rx.matmul(rw) + 1.0).exp().sum_dim(1);
    EXPECT_EQ(y.device(), device);
    EXPECT_EQ(y.to_data(), (x.matmul(w) + 1.0).exp().sum_dim(1).to_data());
    auto [values, indices] = rx.sort_with_indices(1);
    EXPECT_EQ(indices.to_data(), x.sort_with_indices(1).second.to_data());
    EXPECT_EQ(rx.greater_elem(0.0).to_data(), x.greater_elem(0.0).to_data());
  }
}

TEST(Router, MixingBackendsInOneOpNamesBoth) {
  auto a = RT<1>::from_data(TensorData(std::vector<float>{1, 2}, Shape{2}), Two::device<0>());
  auto b = RT<1>::from_data(TensorData(std::vector<float>{3, 4}, Shape{2}), Two::device<1>());
  try {
    (void)(a + b);
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("[add] operands on two backends: backend 0 (", 0), 0u) << what;
    EXPECT_NE(what.find(") and backend 1 ("), std::string::npos) << what;
  }
}

TEST(Router, ToDeviceMovesBetweenBackends) {
  auto a = RT<2>::from_data(TensorData(std::vector<float>{1, 2, 3, 4}, Shape{2, 2}), Two::device<0>());
  auto moved = a.to_device(Two::device<1>());
  EXPECT_EQ(moved.device(), Two::device<1>());
  EXPECT_EQ(moved.to_data(), a.to_data());
  auto b = RT<2>::from_data(TensorData(std::vector<float>{1, 1, 1, 1}, Shape{2, 2}), Two::device<1>());
  EXPECT_EQ((moved + b).to_data(), TensorData(std::vector<float>{2, 3, 4, 5}, Shape{2, 2}));
  auto ints = RT<1, Int>::from_data(TensorData(std::vector<int64_t>{7, 8}, Shape{2}), Two::device<1>());
  EXPECT_EQ(ints.to_device(Two::device<0>()).to_data(), ints.to_data());
}

}  // namespace
}  // namespace scorch
