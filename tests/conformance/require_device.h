#pragma once
// A GoogleTest environment that skips a whole test binary, saying why, where the stack its suite needs cannot run
// (scorch_gradient_tests on a Dyn stack whose unavailable() says why).
#include <functional>
#include <string>

#include <gtest/gtest.h>

namespace scorch::conformance {

class RequireDevice : public ::testing::Environment {
 public:
  /// missing() says why the device is absent ("" when it is there).
  RequireDevice(const char* suite, std::function<std::string()> missing)
      : suite_(suite), missing_(std::move(missing)) {}
  void SetUp() override {
    if (std::string why = missing_(); !why.empty()) GTEST_SKIP() << why << ": the " << suite_ << " is skipped";
  }

 private:
  const char* suite_;
  std::function<std::string()> missing_;
};

}  // namespace scorch::conformance
