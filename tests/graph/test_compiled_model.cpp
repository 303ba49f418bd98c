// The compiled path (scorch/graph): the arena plan's invariants, real architectures exported by PyTorch equal to
// the interpreter (and to PyTorch) with every node lowered or fused where the plan can, ONNX's node suite through
// the compiled path as through the interpreter, and the errors of a wrong input.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <filesystem>
#include <iostream>
#include <random>

#include "module/onnx_fixture_weights.h"
#include "module/onnx_node_suite.h"
#include "scorch/graph/arena_plan.h"
#include "scorch/graph/compiled_model.h"
#include "scorch/graph/tool.h"
#include "scorch/stacks/dyn/autodiff.h"
#include "support/expect_error.h"

// Counts operator new while alloc_count::counting is on (CompiledModel.HeapAllocationsPerRunStayConstant).
namespace scorch::graph::alloc_count {
std::atomic<bool> counting{false};
std::atomic<size_t> allocations{0};
}  // namespace scorch::graph::alloc_count

void* operator new(std::size_t n) {
  if (scorch::graph::alloc_count::counting) ++scorch::graph::alloc_count::allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace scorch::graph {
namespace {
namespace fs = std::filesystem;

const fs::path kModels = fs::path(SCORCH_MODULE_FIXTURES) / "onnx" / "models";

TEST(ArenaPlan, BuffersAliveTogetherNeverShareBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<BufferLife> buffers;
    for (int i = 0; i < 40; ++i) {
      size_t first = rng() % 30;
      buffers.push_back({1 + rng() % 5000, first, first + rng() % 8});
    }
    ArenaPlan plan = plan_arena(buffers);
    size_t largest = 0, total = 0;
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(plan.offsets[i] % 64, 0u);
      EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.bytes);
      largest = std::max(largest, buffers[i].bytes), total += (buffers[i].bytes + 63) / 64 * 64;
      for (size_t j = 0; j < i; ++j) {
        bool together = buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
        bool apart = plan.offsets[i] + buffers[i].bytes <= plan.offsets[j] ||
                     plan.offsets[j] + buffers[j].bytes <= plan.offsets[i];
        if (together) EXPECT_TRUE(apart) << "buffers " << i << " and " << j << " overlap";
      }
    }
    EXPECT_GE(plan.bytes, largest);
    EXPECT_LE(plan.bytes, total);
  }
}

TEST(ArenaPlan, BuffersAliveApartShareTheArena) {
  ArenaPlan plan = plan_arena({{1000, 0, 1}, {1000, 2, 3}, {500, 4, 5}});
  EXPECT_EQ(plan.bytes, 1024u);
  EXPECT_EQ(plan.offsets, (std::vector<size_t>{0, 0, 0}));
}

// Largest difference between a and b over the largest magnitude of b.
double relative_difference(const TensorData& a, const TensorData& b) {
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double diff = 0, scale = 1e-30;
  for (size_t i = 0; i < x.size(); ++i)
    diff = std::max(diff, std::abs(x[i] - y[i])), scale = std::max(scale, std::abs(y[i]));
  return diff / scale;
}

class CompiledArchitectures : public ::testing::TestWithParam<std::string> {};

TEST_P(CompiledArchitectures, EqualTheInterpreterAndPyTorch) {
  fs::path tmp = fs::temp_directory_path() / ("scorch_graph_" + GetParam() + "_" + std::to_string(::getpid()));
  fs::path file = onnx::fixtures::materialize(kModels / GetParam(), tmp);
  TensorData input = onnx::read_tensor((kModels / GetParam() / "input_0.pb").string());
  TensorData expected = onnx::read_tensor((kModels / GetParam() / "output_0.pb").string());
  auto rt = onnx::load<Dyn>(file.string(), Dyn::device("cpu"));
  TensorData interpreted = rt.run(std::vector<TensorData>{input}).at(0);
  CompiledModel compiled = compile(onnx::read_model(file.string()), {input});
  TensorData got = compiled.run({input}).at(0);
  ASSERT_EQ(got.shape(), interpreted.shape());
  EXPECT_LE(relative_difference(got, interpreted), 1e-5) << compiled.summary();
  EXPECT_EQ(onnx::node_suite::compare(got, expected, 1e-4, 1e-3), "");
  EXPECT_EQ(compiled.run({input}).at(0), got);  // a second run on the same arena gives the same values
  CompiledModel unfused = compile(onnx::read_model(file.string()), {input}, {0, false, true});
  EXPECT_LE(relative_difference(unfused.run({input}).at(0), interpreted), 1e-5);
  CompiledModel unlowered = compile(onnx::read_model(file.string()), {input}, {0, true, false});
  EXPECT_LE(relative_difference(unlowered.run({input}).at(0), interpreted), 1e-5);
  if (GetParam() == "resnet18" || GetParam() == "mobilenet_v2") {
    // Every node lowered; each convolution absorbs its activation and residual add.
    EXPECT_NE(compiled.summary().find(" 0 run by the interpreter"), std::string::npos) << compiled.summary();
    auto steps = compiled.profile();
    bool fused_residual = std::any_of(steps.begin(), steps.end(), [](const StepInfo& s) {
      return s.kind == "conv" && s.ops.find("Add") != std::string::npos;
    });
    EXPECT_TRUE(fused_residual) << compiled.summary();
  }
  fs::remove_all(tmp);
}

INSTANTIATE_TEST_SUITE_P(Models, CompiledArchitectures,
                         ::testing::Values("resnet18", "mobilenet_v2", "encoder", "lstm_tagger"));

TEST(CompiledModel, ProfileTimesEveryStep) {
  fs::path tmp = fs::temp_directory_path() / ("scorch_graph_profile_" + std::to_string(::getpid()));
  fs::path file = onnx::fixtures::materialize(kModels / "resnet18", tmp);
  TensorData input = onnx::read_tensor((kModels / "resnet18" / "input_0.pb").string());
  CompiledModel compiled = compile(onnx::read_model(file.string()), {input});
  compiled.set_profiling(true);
  compiled.run({input});
  for (const auto& step : compiled.profile()) EXPECT_GT(step.ms, 0.0) << step.nodes;
  compiled.reset_profile();
  for (const auto& step : compiled.profile()) EXPECT_EQ(step.ms, 0.0);
  EXPECT_GT(compiled.arena_bytes(), 0u);
  fs::remove_all(tmp);
}

// A fully lowered model after warm-up: run_into reuses the outputs; the allocations left are oneDNN's, which
// builds an argument map and context per primitive call: their count stays the same from run to run.
TEST(CompiledModel, HeapAllocationsPerRunStayConstant) {
  fs::path tmp = fs::temp_directory_path() / ("scorch_graph_alloc_" + std::to_string(::getpid()));
  fs::path file = onnx::fixtures::materialize(kModels / "resnet18", tmp);
  std::vector<TensorData> inputs{onnx::read_tensor((kModels / "resnet18" / "input_0.pb").string())}, outputs;
  CompiledModel compiled = compile(onnx::read_model(file.string()), inputs);
  ASSERT_NE(compiled.summary().find(" 0 run by the interpreter"), std::string::npos);
  for (int i = 0; i < 3; ++i) compiled.run_into(inputs, outputs);
  std::vector<size_t> counts;
  for (int i = 0; i < 3; ++i) {
    alloc_count::allocations = 0, alloc_count::counting = true;
    compiled.run_into(inputs, outputs);
    alloc_count::counting = false;
    counts.push_back(alloc_count::allocations);
  }
  EXPECT_EQ(counts[0], counts[1]);
  EXPECT_EQ(counts[1], counts[2]);
  // oneDNN's dnnl_primitive_execute builds an argument map and an execution context per call: about 6 allocations
  // on this machine (bounded loosely: another ISA picks other implementations).
  EXPECT_LE(counts[0], 16 * compiled.profile().size()) << "allocations per run: " << counts[0];
  std::cout << "heap allocations per run: " << counts[0] << " (" << compiled.profile().size() << " steps)\n";
  fs::remove_all(tmp);
}

TEST(CompiledModel, WrongInputsAreErrorsNamingThem) {
  fs::path tmp = fs::temp_directory_path() / ("scorch_graph_errors_" + std::to_string(::getpid()));
  fs::path file = onnx::fixtures::materialize(kModels / "resnet18", tmp);
  TensorData input = onnx::read_tensor((kModels / "resnet18" / "input_0.pb").string());
  testing::expect_error<Error>([&] { compile(onnx::read_model(file.string()), {}); },
                               "[graph::compile] the model takes 1 inputs");
  CompiledModel compiled = compile(onnx::read_model(file.string()), {input});
  TensorData wrong = TensorData::zeros(Shape{2, 3, 224, 224}, DType::F32);
  testing::expect_error<Error>([&] { compiled.run({wrong}); }, "[graph::run] input '");
  testing::expect_error<Error>([&] { compiled.run({input, input}); }, "[graph::run] the model takes 1 inputs, 2");
  fs::remove_all(tmp);
}

// scorch-onnx's bench/profile/run: misuse is an Error naming the option and pointing at --help.
TEST(CompiledModelTool, BadOptionsAreErrors) {
  auto run = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return run_tool(int(argv.size()), argv.data());
  };
  std::string model = SCORCH_MODULE_FIXTURES "/onnx/typed.onnx";
  testing::expect_error<Error>([&] { run({"scorch-onnx", "bench"}); }, "[scorch-onnx] bench needs a model file");
  testing::expect_error<Error>([&] { run({"scorch-onnx", "run", model, "--shape", "1,x"}); }, "[scorch-onnx] --shape");
  testing::expect_error<Error>(
      [&] {
        run({"scorch-onnx", "run", model, "--reps", "-2"});
      },
      "[scorch-onnx] --reps wants a non-negative number, not '-2'");
  testing::expect_error<Error>(
      [&] {
        run({"scorch-onnx", "profile", model, "--fast"});
      },
      "[scorch-onnx] unknown or incomplete option --fast");
  testing::expect_error<Error>([&] { run({"scorch-onnx", "run", "/no/such.onnx"}); }, "[load] /no/such.onnx");
}

// Every case of ONNX's node suite whose values are all tensors, compiled with its own inputs, gives the suite's
// outputs wherever the interpreter does.
TEST(CompiledModel, NodeSuiteAsTheInterpreter) {
  namespace ns = onnx::node_suite;
  ASSERT_TRUE(fs::exists(ns::kNodeSuite)) << "no ONNX node suite at " << ns::kNodeSuite << ": install libonnx-testdata";
  size_t compiled_cases = 0, lowered = 0;
  std::vector<std::string> failures;
  for (const auto& entry : fs::directory_iterator(ns::kNodeSuite)) {
    fs::path dir = entry.path();
    if (!ns::run_case<Dyn>(dir).empty()) continue;  // the interpreter's known failures (node_failures.txt)
    onnx::Model model = onnx::read_model((dir / "model.onnx").string());
    for (const auto& set : fs::directory_iterator(dir)) {
      if (!set.is_directory()) continue;
      std::vector<TensorData> inputs;
      bool tensors = true;
      size_t fed = 0;
      for (const auto& info : model.graph.inputs)
        if (!model.graph.initializers.count(info.name)) {
          auto file = set.path() / ("input_" + std::to_string(fed++) + ".pb");
          auto value = onnx::read_value(file.string(), info);
          tensors &= value.type == onnx::ValueType::Tensor;
          inputs.push_back(value.tensor);
        }
      for (const auto& info : model.graph.outputs) tensors &= info.containers.empty();
      if (!tensors) break;
      std::string why;
      try {
        CompiledModel compiled = compile(model, inputs, {1, true, true});  // one thread: beside other tests
        auto outputs = compiled.run(inputs);
        for (size_t i = 0; i < outputs.size() && why.empty(); ++i) {
          auto file = set.path() / ("output_" + std::to_string(i) + ".pb");
          why = ns::compare(outputs[i], onnx::read_value(file.string(), model.graph.outputs[i]).tensor);
        }
        ++compiled_cases;
        lowered += compiled.summary().find(" 0 run by the interpreter") != std::string::npos;
      } catch (const Error& e) {
        std::string what = e.what();
        if (what.rfind("[graph::compile] the model has If/Loop", 0) == 0 || what.find("is a sequence") != what.npos)
          break;  // outside the compiled path, as documented
        why = what;
      }
      if (!why.empty()) failures.push_back(dir.filename().string() + ": " + why);
    }
  }
  EXPECT_GT(compiled_cases, 800u);
  EXPECT_GT(lowered, 80u);
  std::string listed;
  for (const auto& f : failures) listed += "\n  " + f;
  EXPECT_TRUE(failures.empty()) << failures.size() << " cases differ:" << listed;
  std::cout << compiled_cases << " cases compiled, " << lowered << " with every node lowered\n";
}

}  // namespace
}  // namespace scorch::graph
