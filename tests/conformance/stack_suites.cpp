// Registers the conformance suite's tests on the stacks named on the command line (stack_suites.h).
#include "stack_suites.h"

#include <functional>

namespace scorch::conformance {
namespace {

/// name with every character outside [A-Za-z0-9_] as '_' ("autodiff<fusion<cpu>>" -> "autodiff_fusion_cpu").
std::string identifier(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (word) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

/// A test that runs body on device, the stack's key set for the cases that depend on it.
class StackTest : public ::testing::Test {
 public:
  StackTest(Dyn::Device device, std::function<void()> body) : device_(std::move(device)), body_(std::move(body)) {}
  void TestBody() override {
    Dyn::set_default_device(device_);
    current_stack_key() = device_.stack().key();
    body_();
  }

 private:
  Dyn::Device device_;
  std::function<void()> body_;
};

void add_test(const std::string& suite, const std::string& name, const Dyn::Device& device,
              std::function<void()> body) {
  ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [=]() -> ::testing::Test* { return new StackTest(device, body); });
}

template <class B> void register_cases(const std::string& stack, const Dyn::Device& device) {
  for (const auto& name : fixture_names())
    add_test("Conformance_" + stack, name, device, [name] { run_named<B>(fixtures(), name); });
  for (const auto& name : edge_names())
    add_test("Edge_" + stack, test_name(name), device, [name] { run_edge<B>(name); });
  add_test("Coverage_" + stack, "EveryOpHasACaseAndEveryCaseAFixture", device, [] {
    auto [missing_ops, missing_fixtures] = coverage_gaps<B>();
    std::string ops, cases;
    for (const auto& op : missing_ops) ops += " " + op;
    for (const auto& c : missing_fixtures) cases += " " + c;
    EXPECT_TRUE(missing_ops.empty()) << missing_ops.size() << " ops without a case:" << ops;
    EXPECT_TRUE(missing_fixtures.empty()) << "cases without a fixture:" << cases;
  });
}

}  // namespace

void register_stack_suites(const std::string& name) {
  auto choice = Dyn::parse(name);
  std::string stack = identifier(name);
  if (std::string why = choice.device.stack().unavailable(); !why.empty()) {
    add_test("Conformance_" + stack, "Unavailable", choice.device,
             [why, name] { GTEST_SKIP() << why << ": the conformance suite on " << name << " is skipped"; });
    return;
  }
  if (choice.autodiff) register_cases<Autodiff<Dyn>>(stack, choice.device);
  else register_cases<Dyn>(stack, choice.device);
}

}  // namespace scorch::conformance
