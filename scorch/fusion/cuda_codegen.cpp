// CUDA C generation for fused elementwise programs (see cuda_codegen.h).
#include "scorch/fusion/cuda_codegen.h"

#include <cstdint>
#include <sstream>

#define SCORCH_FUSION_STR2(x) #x
#define SCORCH_FUSION_STR(x) SCORCH_FUSION_STR2(x)

namespace scorch::fusion {
namespace {

/// The device storage (= compute, for the dtypes generated) type of d, or nullptr when not generated.
const char* c_type(DType d) {
  switch (d) {
    case DType::F64: return "double";
    case DType::F32: return "float";
    case DType::I64: return "long long";
    case DType::I32: return "int";
    case DType::I16: return "short";
    case DType::I8: return "signed char";
    case DType::U8: return "unsigned char";
    case DType::Bool: return "bool";
    default: return nullptr;  // f16/bf16: eager rounds to storage between ops; not generated yet
  }
}

/// Float ops without a functor in the table whose float semantics are one functor.
std::string_view extra_functor(OpId op, std::string_view& loop) {
  switch (op) {
    case OpId::float_div: loop = "binary_numeric"; return "Div";
    case OpId::float_remainder: loop = "binary_numeric"; return "Remainder";
    case OpId::float_div_scalar: loop = "scalar_numeric"; return "Div";
    case OpId::float_remainder_scalar: loop = "scalar_numeric"; return "Remainder";
    case OpId::float_mask_where: loop = "mask_where"; return "-";
    case OpId::float_mask_fill: loop = "mask_fill"; return "-";
    default: return "";
  }
}

std::string value_name(int input) {
  return input >= 0 ? "v" + std::to_string(input) : "l" + std::to_string(-input - 1);
}

/// The expression computing op; advances scalar (the next FusedParams scalar slot). Empty: no recipe.
std::string op_expression(const KernelOp& k, size_t& scalar) {
  const OpInfo& info = op_info(k.op);
  std::string_view loop = info.loop, functor = info.functor;
  if (functor.empty()) functor = extra_functor(k.op, loop);
  if (functor.empty()) return "";
  const char* c = c_type(k.input_dtype);
  bool is_float = k.input_dtype == DType::F32 || k.input_dtype == DType::F64;
  std::string f = "scorch::scalar_ops::" + std::string(functor) + "{}";
  std::vector<std::string> in;
  for (int i : k.inputs) in.push_back(value_name(i));
  auto slot = [&](const char* array) { return std::string("p.") + array + "[" + std::to_string(scalar++) + "]"; };
  if (loop == "unary_float" || loop == "unary_numeric") return f + "(" + in[0] + ")";
  if (loop == "binary_numeric" || loop == "int_binary" || loop == "bool_binary" || loop == "compare")
    return f + "(" + in[0] + ", " + in[1] + ")";
  if (loop == "scalar_numeric") {
    if (k.input_dtype == DType::Bool) return "";
    return f + "(" + in[0] + ", (" + c + ")" + slot(is_float ? "fs" : "is") + ")";
  }
  if (loop == "int_scalar") return f + "((" + c + ")" + in[0] + ", (" + c + ")" + slot("is") + ")";
  if (loop == "compare_scalar") {
    if (is_float || k.scalars.at(0).is_float()) return f + "((double)" + in[0] + ", " + slot("fs") + ")";
    if (k.input_dtype == DType::Bool) return "";
    return f + "(" + in[0] + ", (" + c + ")" + slot("is") + ")";
  }
  if (loop == "mask_where") return "(" + in[1] + " ? " + in[2] + " : " + in[0] + ")";
  if (loop == "mask_fill") return "(" + in[1] + " ? (" + c + ")" + slot("fs") + " : " + in[0] + ")";
  return "";
}

/// The dtype op k produces.
DType op_dtype(const KernelOp& k) {
  std::string_view loop = op_info(k.op).loop;
  return loop == "compare" || loop == "compare_scalar" ? DType::Bool : k.input_dtype;
}

}  // namespace

namespace {

/// The ops' statements over values l<k> (leaves) into v<i>; false when an op or dtype has no recipe.
bool emit_ops(const KernelPlan& plan, std::ostream& s, const std::string& indent) {
  size_t scalar = 0;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const KernelOp& k = plan.ops[i];
    const char* out = c_type(op_dtype(k));
    if (!c_type(k.input_dtype) || !out) return false;
    std::string e = op_expression(k, scalar);
    if (e.empty() || scalar > kMaxFusedScalars) return false;
    s << indent << "const " << out << " v" << i << " = (" << out << ")" << e << ";\n";
  }
  return true;
}

/// One element at index i: leaves loaded at their offsets (o[k], or i when contiguous), outputs stored at i.
bool emit_element(const KernelPlan& plan, std::ostream& s, const std::string& indent) {
  for (size_t k = 0; k < plan.leaves.size(); ++k) {
    const char* c = c_type(plan.leaves[k]);
    s << indent << "const " << c << " l" << k << " = ((const " << c << "*)p.in[" << k << "])["
      << (plan.contiguous ? "i" : "o[" + std::to_string(k) + "]") << "];\n";
  }
  if (!emit_ops(plan, s, indent)) return false;
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    s << indent << "((" << c_type(plan.output_dtypes[k]) << "*)p.out[" << k << "])[i] = v" << plan.outputs[k] << ";\n";
  return true;
}

/// kFusedLanes elements at base, every operand moved as one aligned pack (p.vec says the pointers allow it).
bool emit_packed(const KernelPlan& plan, std::ostream& s) {
  s << "  if (p.vec && base + " << kFusedLanes << " <= p.n) {\n";
  for (size_t k = 0; k < plan.leaves.size(); ++k) {
    const char* c = c_type(plan.leaves[k]);
    s << "    const Pack<" << c << "> a" << k << " = *(const Pack<" << c << ">*)((const " << c << "*)p.in[" << k
      << "] + base);\n";
  }
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    s << "    Pack<" << c_type(plan.output_dtypes[k]) << "> r" << k << ";\n";
  s << "#pragma unroll\n    for (int j = 0; j < " << kFusedLanes << "; ++j) {\n";
  for (size_t k = 0; k < plan.leaves.size(); ++k)
    s << "      const " << c_type(plan.leaves[k]) << " l" << k << " = a" << k << ".v[j];\n";
  if (!emit_ops(plan, s, "      ")) return false;
  for (size_t k = 0; k < plan.outputs.size(); ++k) s << "      r" << k << ".v[j] = v" << plan.outputs[k] << ";\n";
  s << "    }\n";
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    const char* c = c_type(plan.output_dtypes[k]);
    s << "    *(Pack<" << c << ">*)((" << c << "*)p.out[" << k << "] + base) = r" << k << ";\n";
  }
  s << "    return;\n  }\n";
  return true;
}

}  // namespace

std::optional<std::string> generate_cuda_source(const KernelPlan& plan) {
  if (plan.leaves.size() > kMaxFusedLeaves || plan.outputs.size() > kMaxFusedOutputs) return std::nullopt;
  for (DType d : plan.leaves)
    if (!c_type(d)) return std::nullopt;
  std::ostringstream s;
  s << "#include \"scorch/backends/common/scalar_ops.h\"\n"
    << "struct FusedParams { " SCORCH_FUSION_STR(SCORCH_FUSED_PARAMS_BODY) " };\n"
    << "template <class T> struct alignas(" << kFusedLanes << " * sizeof(T)) Pack { T v[" << kFusedLanes << "]; };\n"
    << "extern \"C\" __global__ void " << kFusedEntry << "(const FusedParams p) {\n";
  if (plan.contiguous) {
    s << "  const long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * " << kFusedLanes << ";\n"
      << "  if (base >= p.n) return;\n";
    if (!emit_packed(plan, s)) return std::nullopt;
    s << "  for (long long i = base; i < base + " << kFusedLanes << " && i < p.n; ++i) {\n";
    if (!emit_element(plan, s, "    ")) return std::nullopt;
    s << "  }\n}\n";
    return s.str();
  }
  s << "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    << "  if (i >= p.n) return;\n"
    << "  long long o[" << plan.leaves.size() << "] = {};\n"
    << "  for (long long d = p.rank - 1, r = i; d >= 0; --d) {\n"
    << "    const long long c = r % p.dims[d];\n    r /= p.dims[d];\n"
    << "    for (int k = 0; k < " << plan.leaves.size() << "; ++k) o[k] += c * p.strides[k][d];\n  }\n";
  if (!emit_element(plan, s, "  ")) return std::nullopt;
  s << "}\n";
  return s.str();
}

void fill_scalars(const KernelPlan& plan, FusedParams& params) {
  size_t slot = 0;
  for (const auto& k : plan.ops)
    for (const Scalar& v : k.scalars) {
      params.fs[slot] = v.to_double();
      // As the eager kernels' scalar_as (a float scalar truncated), without the undefined conversion of a
      // value beyond int64 (x86's result, INT64_MIN, instead).
      bool fits = !v.is_float() || (v.to_double() > -9.2e18 && v.to_double() < 9.2e18);
      params.is[slot] = fits ? static_cast<long long>(v.to_int()) : INT64_MIN;
      ++slot;
    }
}

}  // namespace scorch::fusion
