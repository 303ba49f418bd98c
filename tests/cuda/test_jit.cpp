// Kernels compiled at run time (backends/cuda/jit.h) from the scalar functors' text: every functor of
// op_table.txt compiles with NVRTC for each compute type its kind uses (no GPU needed), bad source
// reports NVRTC's log, and on a GPU each registry float op's generated kernel (tests/registry) gives
// the eager Cuda kernel's bits exactly (one definition, two compilers).
#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

#include <scorch/backends/cuda/jit.h>
#include <scorch/gen/op_info.h>

#include "../registry/domains.h"
#include "scorch/gen/test_registry.h"
#include "cuda_test_util.h"

namespace scorch {
namespace {

namespace jit = backends::cuda::jit;

/// The compute types a kind's loops run a functor on.
std::vector<std::string> compute_types(OpKind kind) {
  switch (kind) {
    case OpKind::Float: return {"float", "double"};
    case OpKind::Int: return {"signed char", "unsigned char", "int", "long long"};
    default: return {"bool"};
  }
}

/// An extern "C" kernel out[i] = functor(a[i][, b[i] | s]) with one argument list for every op.
std::string functor_kernel(const OpInfo& op, const std::string& type, const std::string& entry) {
  bool scalar = op.signature.find("Scalar") != std::string_view::npos;
  bool to_bool = op.signature.ends_with("-> Bt");
  std::string call = "scorch::scalar_ops::" + std::string(op.functor) + "{}(a[i]";
  call += op.tensor_inputs == 2 ? ", b[i])" : scalar ? ", s)" : ")";
  std::ostringstream k;
  k << "extern \"C\" __global__ void " << entry << "(" << (to_bool ? "bool" : type) << "* out, const " << type
    << "* a, const " << type << "* b, " << type << " s, long long n) {\n"
    << "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    << "  if (i < n) out[i] = " << call << ";\n}\n";
  return k.str();
}

std::string entry_name(const OpInfo& op, const std::string& type) {
  std::string name = std::string(op.name) + "_" + type;
  for (char& c : name)
    if (c == ' ') c = '_';
  return name;
}

const char* kInclude = "#include \"scorch/backends/common/scalar_ops.h\"\n";

TEST(CudaJit, EveryTableFunctorCompilesForEachComputeType) {
  if (!jit::nvrtc_available()) GTEST_SKIP() << "NVRTC cannot be opened here";
  std::string source = kInclude;
  size_t kernels = 0;
  for (const auto& op : kOps) {
    if (op.functor.empty()) continue;
    for (const auto& type : compute_types(op.kind)) {
      source += functor_kernel(op, type, entry_name(op, type));
      ++kernels;
    }
  }
  EXPECT_GT(kernels, 100u);
  std::string cubin = jit::compile(source, "every_functor.cu", 90);
  EXPECT_GT(cubin.size(), 1000u);
  // The CUBIN is an ELF holding each entry's name.
  for (const auto& op : kOps)
    if (!op.functor.empty()) {
      for (const auto& type : compute_types(op.kind))
        EXPECT_NE(cubin.find(entry_name(op, type)), std::string::npos) << entry_name(op, type);
    }
}

TEST(CudaJit, BadSourceReportsTheCompilerLog) {
  if (!jit::nvrtc_available()) GTEST_SKIP() << "NVRTC cannot be opened here";
  try {
    (void)jit::compile("extern \"C\" __global__ void k() { undeclared_name(); }", "broken.cu", 90);
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cuda.jit"), std::string::npos) << what;
    EXPECT_NE(what.find("broken.cu"), std::string::npos) << what;
    EXPECT_NE(what.find("undeclared_name"), std::string::npos) << what;
  }
  EXPECT_THROW((void)jit::compile(kInclude, "arch.cu", 7), DeviceError);
}

TEST(CudaJit, WithoutAGpuLoadingThrows) {
  if (backends::cuda::is_available()) GTEST_SKIP() << "a GPU is visible";
  EXPECT_THROW((void)jit::compute_capability(0), DeviceError);
}

/// Inputs over the whole float range the op sees: normals, large values, and the specials.
std::vector<float> sweep(size_t n) {
  std::mt19937 rng(20);
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  const float specials[] = {0.f, -0.f, 1.f, -1.f, 0.5f, 100.f, -100.f, 1e-30f, INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < std::size(specials); ++i) v[i] = specials[i];
  return v;
}

using CudaVector = Tensor<Cuda, 1>;
/// The eager op on a (and b, for binary ops).
using Eager = CudaVector (*)(const CudaVector& a, const CudaVector& b);

TEST(CudaJit, GeneratedKernelsMatchTheEagerKernelsBitForBit) {
  SCORCH_REQUIRE_CUDA();
  const int device = 0;
#define SCORCH_JIT_UNARY(op, domain, torch) \
  {"float_" #op, [](const CudaVector& a, const CudaVector&) { return a.op(); }},
#define SCORCH_JIT_BINARY(op, domain_a, domain_b, torch) \
  {"float_" #op, [](const CudaVector& a, const CudaVector& b) { return a.op(b); }},
  const std::map<std::string, Eager> eager = {SCORCH_UNARY_CASES(SCORCH_JIT_UNARY)
                                                  SCORCH_BINARY_CASES(SCORCH_JIT_BINARY)};
#undef SCORCH_JIT_UNARY
#undef SCORCH_JIT_BINARY
  std::string source = kInclude;
  for (const auto& op : kOps)
    if (eager.count(std::string(op.name)) && !op.functor.empty()) source += functor_kernel(op, "float", op.name.data());
  std::string cubin = jit::compile(source, "unary.cu", jit::compute_capability(device));

  const size_t n = 4099;
  auto values = sweep(n), others = values;
  std::reverse(others.begin(), others.end());  // every special meets others as the second operand
  CudaVector x = CudaVector::from_data(TensorData(values, Shape{n}), CudaDevice{device});
  CudaVector y = CudaVector::from_data(TensorData(others, Shape{n}), CudaDevice{device});
  size_t checked = 0;
  for (const auto& op : kOps) {
    auto found = eager.find(std::string(op.name));
    if (found == eager.end() || op.functor.empty()) continue;
    jit::Kernel kernel(cubin, std::string(op.name), device);
    CudaVector out = CudaVector::empty(Shape{n}, CudaDevice{device});
    const void* a = x.primitive().raw();
    const void* b = y.primitive().raw();
    void* o = out.primitive().raw();
    float s = 0;
    long long count = static_cast<long long>(n);
    void* args[] = {&o, &a, &b, &s, &count};
    kernel.launch(static_cast<unsigned>((n + 255) / 256), 256, args);
    auto generated = out.to_data().to_vector<float>();
    auto expected = found->second(x, y).to_data().to_vector<float>();
    for (size_t i = 0; i < n; ++i) {
      bool same = std::memcmp(&generated[i], &expected[i], sizeof(float)) == 0 ||
                  (generated[i] != generated[i] && expected[i] != expected[i]);
      ASSERT_TRUE(same) << op.name << "(" << values[i] << ", " << others[i] << "): generated " << generated[i]
                        << ", eager " << expected[i];
    }
    ++checked;
  }
  EXPECT_GE(checked, 30u);
}

}  // namespace
}  // namespace scorch
