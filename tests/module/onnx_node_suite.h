#pragma once
// Runs ONNX's backend node test suite (Debian's libonnx-testdata) through onnx::load<B> and compares every output
// with the suite's within ONNX's own tolerance (rtol 1e-3, atol 1e-7); shared by the Cpu test
// (module/test_onnx_runtime.cpp) and the Cuda one (cuda/test_onnx_cuda.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "scorch/import/onnx/runtime/runtime.h"

namespace scorch::onnx::node_suite {
namespace fs = std::filesystem;

/// libonnx-testdata's node suite, or the folder SCORCH_ONNX_NODE_SUITE names (machines without the package).
inline const fs::path kNodeSuite = std::getenv("SCORCH_ONNX_NODE_SUITE") ? std::getenv("SCORCH_ONNX_NODE_SUITE")
                                                                         : "/usr/include/onnx/backend/test/data/node";

/// "" when got matches expected (dtype, shape, every value within atol + rtol·|expected|; NaN matches NaN), else
/// the first difference.
inline std::string compare(const TensorData& got, const TensorData& expected, double atol = 1e-7, double rtol = 1e-3) {
  if (got.dtype() != expected.dtype())
    return "dtype " + std::string(dtype_name(got.dtype())) + ", expected " + std::string(dtype_name(expected.dtype()));
  if (got.shape() != expected.shape())
    return "shape " + got.shape().to_string() + ", expected " + expected.shape().to_string();
  auto a = got.convert(DType::F64).to_vector<double>(), b = expected.convert(DType::F64).to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i) {
    bool same =
        (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i] || std::abs(a[i] - b[i]) <= atol + rtol * std::abs(b[i]);
    if (!same)
      return "element " + std::to_string(i) + " is " + std::to_string(a[i]) + ", expected " + std::to_string(b[i]);
  }
  return "";
}

/// As compare for tensors; sequences and optionals match when their kinds and lengths agree and every element does.
inline std::string compare_values(const HostValue& got, const HostValue& expected) {
  if (got.type != expected.type) return "a value of another kind than expected";
  if (got.type == ValueType::Tensor) return compare(got.tensor, expected.tensor);
  if (got.elements.size() != expected.elements.size())
    return std::to_string(got.elements.size()) + " elements, expected " + std::to_string(expected.elements.size());
  for (size_t i = 0; i < got.elements.size(); ++i)
    if (std::string diff = compare_values(got.elements[i], expected.elements[i]); !diff.empty())
      return "element " + std::to_string(i) + ": " + diff;
  return "";
}

/// Runs one case's test data sets; "" on success, else why it failed.
template <class B> std::string run_case(const fs::path& dir) {
  try {
    Runtime<B> rt = load<B>((dir / "model.onnx").string());
    for (const auto& set : fs::directory_iterator(dir)) {
      if (!set.is_directory()) continue;
      std::map<std::string, HostValue> inputs;
      const auto& declared = rt.model().graph.inputs;
      for (size_t i = 0; fs::exists(set.path() / ("input_" + std::to_string(i) + ".pb")); ++i) {
        if (i >= declared.size()) return "more input files than graph inputs";
        inputs[declared[i].name] =
            read_value((set.path() / ("input_" + std::to_string(i) + ".pb")).string(), declared[i]);
      }
      auto outputs = rt.run_host_values(inputs);
      const auto& names = rt.model().graph.outputs;
      for (size_t i = 0; i < names.size(); ++i) {
        auto file = set.path() / ("output_" + std::to_string(i) + ".pb");
        std::string diff = compare_values(outputs.at(names[i].name), read_value(file.string(), names[i]));
        if (!diff.empty()) return "output " + std::to_string(i) + ": " + diff;
      }
    }
  } catch (const std::exception& e) { return e.what(); }
  return "";
}

/// The op types of a case's model, joined by '+' ("?" when it does not read).
inline std::string op_types(const fs::path& dir) {
  try {
    std::set<std::string> ops;
    for (const auto& n : read_model((dir / "model.onnx").string()).graph.nodes) ops.insert(n.op_type);
    std::string joined;
    for (const auto& op : ops) joined += (joined.empty() ? "" : "+") + op;
    return joined;
  } catch (const std::exception&) { return "?"; }
}

/// Listed failures: case name → reason (lines "name  reason"; # comments).
inline std::map<std::string, std::string> listed_failures(const std::string& path) {
  std::map<std::string, std::string> listed;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    listed[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(line.find_first_not_of(' ', space));
  }
  return listed;
}

/// Runs every case on B; a failure missing from the list at `failures`, or a listed case that passes, fails the
/// test. Prints the pass count per operator.
template <class B> void run_all(const std::string& failures) {
  ASSERT_TRUE(fs::exists(kNodeSuite)) << "libonnx-testdata is missing: run scripts/install-deps.sh";
  std::set<fs::path> dirs{fs::directory_iterator(kNodeSuite), fs::directory_iterator()};
  auto listed = listed_failures(failures);
  std::map<std::string, std::pair<size_t, size_t>> per_op;  // op → (passed, total)
  size_t passed = 0;
  for (const auto& dir : dirs) {
    std::string name = dir.filename().string(), why = run_case<B>(dir);
    auto& [op_passed, op_total] = per_op[op_types(dir)];
    ++op_total;
    if (why.empty()) ++passed, ++op_passed;
    bool is_listed = listed.count(name) > 0;
    if (!why.empty() && !is_listed) ADD_FAILURE() << name << " fails and is not in node_failures.txt: " << why;
    if (why.empty() && is_listed) ADD_FAILURE() << name << " passes: remove it from node_failures.txt";
    if (std::getenv("SCORCH_ONNX_REPORT") && !why.empty()) std::cout << "FAIL " << name << "  " << why << "\n";
  }
  for (const auto& [op, counts] : per_op) std::cout << op << ": " << counts.first << "/" << counts.second << "\n";
  std::cout << "node suite on " << B::name() << ": " << passed << " of " << dirs.size() << " cases pass\n";
}

}  // namespace scorch::onnx::node_suite
