// CUDA C generation for fused programs (see cuda_codegen.h).
#include "scorch/fusion/cuda_codegen.h"

#include <cstdint>
#include <sstream>

// g++ 12 reports "literal" + std::string concatenations as overlapping memcpy (a false positive, fixed in 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#define SCORCH_FUSION_STR2(x) #x
#define SCORCH_FUSION_STR(x) SCORCH_FUSION_STR2(x)

namespace scorch::fusion {
namespace {

bool is_half(DType d) { return d == DType::F16 || d == DType::BF16; }
bool is_float_dtype(DType d) { return d == DType::F32 || d == DType::F64 || is_half(d); }

/// The type generated code computes d's values in (f32 for f16/bf16, as the eager kernels), or nullptr.
const char* c_type(DType d) {
  switch (d) {
    case DType::F64: return "double";
    case DType::F32:
    case DType::F16:
    case DType::BF16: return "float";
    case DType::I64: return "long long";
    case DType::I32: return "int";
    case DType::I16: return "short";
    case DType::I8: return "signed char";
    case DType::U8: return "unsigned char";
    case DType::Bool: return "bool";
    default: return nullptr;
  }
}

/// The type d is stored as in memory (f16/bf16 as their 16-bit patterns).
const char* storage_type(DType d) { return is_half(d) ? "unsigned short" : c_type(d); }

/// The compute value of d's stored bits.
std::string load_value(DType d, const std::string& bits) {
  if (d == DType::F16) return "h2f(" + bits + ")";
  if (d == DType::BF16) return "b2f(" + bits + ")";
  return bits;
}

/// The bits storing the compute value v as d (round to nearest even, as the eager kernels' stores).
std::string store_value(DType d, const std::string& v) {
  if (d == DType::F16) return "f2h((float)(" + v + "))";
  if (d == DType::BF16) return "f2b((float)(" + v + "))";
  return "(" + std::string(c_type(d)) + ")(" + v + ")";
}

/// v rounded to what storing it as d keeps (eager kernels store every op's result).
std::string rounded(DType d, const std::string& v) { return is_half(d) ? load_value(d, store_value(d, v)) : v; }

/// Leaf loads through the read-only cache: leaves are never written by the kernel, so the compiler may move them
/// ahead of shared-memory stores and keep several in flight.
constexpr const char* kLoadHelpers =
    R"(template <class T> __device__ __forceinline__ T ld(const T* p) { return __ldg(p); }
__device__ __forceinline__ bool ld(const bool* p) { return __ldg((const unsigned char*)p) != 0; }
)";

/// Conversions between f32 and f16/bf16 bits with the instructions cuda_fp16/cuda_bf16 use (sm_80 and newer).
constexpr const char* kHalfHelpers = R"(__device__ __forceinline__ float h2f(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short f2h(float f) {
  unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float b2f(unsigned short b) { return __uint_as_float(((unsigned)b) << 16); }
__device__ __forceinline__ unsigned short f2b(float f) {
  unsigned short b; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f)); return b; }
)";

/// Float ops without a functor in the table whose float semantics are one functor.
std::string_view extra_functor(OpId op, std::string_view& loop) {
  switch (op) {
    case OpId::float_div: loop = "binary_numeric"; return "Div";
    case OpId::float_remainder: loop = "binary_numeric"; return "Remainder";
    case OpId::float_div_scalar: loop = "scalar_numeric"; return "Div";
    case OpId::float_remainder_scalar: loop = "scalar_numeric"; return "Remainder";
    case OpId::float_mask_where: loop = "mask_where"; return "-";
    case OpId::float_mask_fill: loop = "mask_fill"; return "-";
    case OpId::float_clamp:
    case OpId::int_clamp: loop = "clamp"; return "Clamp";
    case OpId::float_cast:
    case OpId::float_into_int:
    case OpId::int_cast:
    case OpId::int_into_float:
    case OpId::bool_into_int:
    case OpId::bool_into_float: loop = "cast"; return "-";
    default: return "";
  }
}

std::string value_name(int input) {
  return input >= 0 ? "v" + std::to_string(input) : "l" + std::to_string(-input - 1);
}

/// The dtype op k produces.
DType op_dtype(const KernelOp& k) {
  if (k.output_dtype) return *k.output_dtype;
  std::string_view loop = op_info(k.op).loop;
  return loop == "compare" || loop == "compare_scalar" ? DType::Bool : k.input_dtype;
}

/// The name of a value an op after a reduction reads: -1 the reduction's result, k >= 0 the k-th op after it.
std::string epilogue_name(int input) { return input < 0 ? "r" : "e" + std::to_string(input); }

/// The expression computing op (in its output's compute type), naming its inputs with name; advances scalar (the
/// next FusedParams scalar slot). Empty: no recipe.
std::string op_expression(const KernelOp& k, size_t& scalar, std::string (*name)(int) = value_name) {
  const OpInfo& info = op_info(k.op);
  std::string_view loop = info.loop, functor = info.functor;
  if (functor.empty()) functor = extra_functor(k.op, loop);
  if (functor.empty()) return "";
  const char* c = c_type(k.input_dtype);
  bool floating = is_float_dtype(k.input_dtype);
  std::string f = "scorch::scalar_ops::" + std::string(functor) + "{}";
  std::vector<std::string> in;
  for (int i : k.inputs) in.push_back(name(i));
  auto slot = [&](const char* array) { return std::string("p.") + array + "[" + std::to_string(scalar++) + "]"; };
  if (loop == "unary_float" || loop == "unary_numeric") return f + "(" + in[0] + ")";
  if (loop == "binary_numeric" || loop == "int_binary" || loop == "bool_binary" || loop == "compare")
    return f + "(" + in[0] + ", " + in[1] + ")";
  if (loop == "scalar_numeric") {
    if (k.input_dtype == DType::Bool) return "";
    return f + "(" + in[0] + ", (" + c + ")" + slot(floating ? "fs" : "is") + ")";
  }
  if (loop == "int_scalar") return f + "((" + c + ")" + in[0] + ", (" + c + ")" + slot("is") + ")";
  if (loop == "compare_scalar") {
    if (floating || k.scalars.at(0).is_float()) return f + "((double)" + in[0] + ", " + slot("fs") + ")";
    if (k.input_dtype == DType::Bool) return "";
    return f + "(" + in[0] + ", (" + c + ")" + slot("is") + ")";
  }
  if (loop == "mask_where") return "(" + in[1] + " ? " + in[2] + " : " + in[0] + ")";
  if (loop == "mask_fill") return "(" + in[1] + " ? (" + c + ")" + slot("fs") + " : " + in[0] + ")";
  if (loop == "clamp") {
    if (k.input_dtype == DType::Bool) return "";
    const char* array = floating ? "fs" : "is";
    std::string lo = slot(array), hi = slot(array);
    return "scorch::scalar_ops::Clamp<" + std::string(c) + ">{(" + c + ")" + lo + ", (" + c + ")" + hi + "}(" + in[0] +
           ")";
  }
  if (loop == "cast") return "(" + std::string(c_type(op_dtype(k))) + ")" + in[0];
  return "";
}

/// The statements of ops over values l<k> (leaves) into <prefix><i>, naming inputs with name and taking scalar
/// slots from scalar on; false when an op or dtype has no recipe.
bool emit_op_list(const std::vector<KernelOp>& ops, std::ostream& s, const std::string& indent, size_t& scalar,
                  const char* prefix, std::string (*name)(int)) {
  for (size_t i = 0; i < ops.size(); ++i) {
    const KernelOp& k = ops[i];
    DType out_dtype = op_dtype(k);
    const char* out = c_type(out_dtype);
    if (!c_type(k.input_dtype) || !out) return false;
    std::string e = op_expression(k, scalar, name);
    if (e.empty() || scalar > kMaxFusedScalars) return false;
    s << indent << "const " << out << " " << prefix << i << " = "
      << rounded(out_dtype, "(" + std::string(out) + ")" + e) << ";\n";
  }
  return true;
}

/// The plan's ops' statements over values l<k> (leaves) into v<i>; false when an op or dtype has no recipe.
bool emit_ops(const KernelPlan& plan, std::ostream& s, const std::string& indent) {
  size_t scalar = 0;
  return emit_op_list(plan.ops, s, indent, scalar, "v", value_name);
}

/// Scalar slots the plan's ops before any reduction take.
size_t scalars_before_reduction(const KernelPlan& plan) {
  size_t n = 0;
  for (const KernelOp& k : plan.ops) n += k.scalars.size();
  return n;
}

/// Leaf k's value at offset (an index expression).
std::string leaf_load(const KernelPlan& plan, size_t k, const std::string& offset) {
  return load_value(plan.leaves[k], std::string("ld((const ") + storage_type(plan.leaves[k]) + "*)p.in[" +
                                        std::to_string(k) + "] + " + offset + ")");
}

/// Output k's store of its value at index i.
std::string output_store(const KernelPlan& plan, size_t k) {
  DType d = plan.output_dtypes[k];
  return std::string("((") + storage_type(d) + "*)p.out[" + std::to_string(k) +
         "])[i] = " + store_value(d, "v" + std::to_string(plan.outputs[k])) + ";";
}

/// Offsets o[k] of every leaf at index i of the program's (merged) shape.
void emit_offsets(const KernelPlan& plan, std::ostream& s, const std::string& indent) {
  s << indent << "long long o[" << plan.leaves.size() << "] = {};\n"
    << indent << "for (long long d = p.rank - 1, r = i; d >= 0; --d) {\n"
    << indent << "  const long long c = r % p.dims[d];\n"
    << indent << "  r /= p.dims[d];\n"
    << indent << "  for (int k = 0; k < " << plan.leaves.size() << "; ++k) o[k] += c * p.strides[k][d];\n"
    << indent << "}\n";
}

/// One element at index i: leaves loaded at their offsets (o[k], computed here unless offsets_given, or i when
/// contiguous), outputs stored at i (guarded by `if (keep)` when keep_guard).
bool emit_element(const KernelPlan& plan, std::ostream& s, const std::string& indent, bool keep_guard = false,
                  bool offsets_given = false) {
  if (!plan.contiguous && !offsets_given) emit_offsets(plan, s, indent);
  for (size_t k = 0; k < plan.leaves.size(); ++k)
    s << indent << "const " << c_type(plan.leaves[k]) << " l" << k << " = "
      << leaf_load(plan, k, plan.contiguous ? "i" : "o[" + std::to_string(k) + "]") << ";\n";
  if (!emit_ops(plan, s, indent)) return false;
  if (keep_guard && !plan.outputs.empty()) s << indent << "if (keep) {\n";
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    s << indent << (keep_guard ? "  " : "") << output_store(plan, k) << "\n";
  if (keep_guard && !plan.outputs.empty()) s << indent << "}\n";
  return true;
}

/// kFusedLanes elements at base, every operand moved as one aligned pack (p.vec says the pointers allow it).
bool emit_packed(const KernelPlan& plan, std::ostream& s) {
  s << "  if (p.vec && base + " << kFusedLanes << " <= p.n) {\n";
  for (size_t k = 0; k < plan.leaves.size(); ++k) {
    const char* t = storage_type(plan.leaves[k]);
    s << "    const Pack<" << t << "> a" << k << " = *(const Pack<" << t << ">*)((const " << t << "*)p.in[" << k
      << "] + base);\n";
  }
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    s << "    Pack<" << storage_type(plan.output_dtypes[k]) << "> r" << k << ";\n";
  s << "#pragma unroll\n    for (int j = 0; j < " << kFusedLanes << "; ++j) {\n";
  for (size_t k = 0; k < plan.leaves.size(); ++k)
    s << "      const " << c_type(plan.leaves[k]) << " l" << k << " = "
      << load_value(plan.leaves[k], "a" + std::to_string(k) + ".v[j]") << ";\n";
  if (!emit_ops(plan, s, "      ")) return false;
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    s << "      r" << k << ".v[j] = " << store_value(plan.output_dtypes[k], "v" + std::to_string(plan.outputs[k]))
      << ";\n";
  s << "    }\n";
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    const char* t = storage_type(plan.output_dtypes[k]);
    s << "    *(Pack<" << t << ">*)((" << t << "*)p.out[" << k << "] + base) = r" << k << ";\n";
  }
  s << "    return;\n  }\n";
  return true;
}

/// The source's opening: functor headers, the parameter struct, packs and 16-bit conversions.
void emit_prelude(std::ostream& s) {
  s << "#include \"scorch/backends/common/scalar_ops.h\"\n"
    << "struct FusedParams { " SCORCH_FUSION_STR(SCORCH_FUSED_PARAMS_BODY) " };\n"
    << "template <class T> struct alignas(" << kFusedLanes << " * sizeof(T)) Pack { T v[" << kFusedLanes << "]; };\n"
    << kHalfHelpers << kLoadHelpers;
}

bool plan_fits(const KernelPlan& plan) {
  size_t outputs = plan.outputs.size() + (plan.reduce ? 1 : 0) + plan.epilogue_outputs.size();
  if (plan.leaves.size() > kMaxFusedLeaves || outputs > kMaxFusedOutputs) return false;
  if (!plan.epilogue.empty() && (!plan.reduce || !c_type(plan.reduce->dtype))) return false;
  for (DType d : plan.leaves)
    if (!c_type(d)) return false;
  for (DType d : plan.output_dtypes)
    if (!c_type(d)) return false;
  for (DType d : plan.epilogue_output_dtypes)
    if (!c_type(d)) return false;
  // Every op after the reduction has a recipe (the kernel source writes them without checking again).
  std::ostringstream scratch;
  size_t scalar = scalars_before_reduction(plan);
  return emit_op_list(plan.epilogue, scratch, "", scalar, "e", epilogue_name);
}

std::optional<std::string> elementwise_source(const KernelPlan& plan) {
  std::ostringstream s;
  emit_prelude(s);
  s << "extern \"C\" __global__ void " << kFusedEntry << "(const __grid_constant__ FusedParams p) {\n";
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
    << "  if (i >= p.n) return;\n";
  if (!emit_element(plan, s, "  ")) return std::nullopt;
  s << "}\n";
  return s.str();
}

/// What a reduction folds: accumulator type, identity, combine and finish (the eager kernels' Folder and softmax).
struct Fold {
  std::string acc, identity, combine, finish;  // combine over (a, b); finish over (a) and n
  bool softmax = false, log = false;
};

std::optional<Fold> fold_of(const KernelReduce& r) {
  std::string c = c_type(r.dtype);
  switch (r.op) {
    case OpId::float_sum_dim: return Fold{"double", "0.0", "a + b", "a"};
    case OpId::float_mean_dim: return Fold{"double", "0.0", "a + b", "a / (double)n"};
    case OpId::float_max_dim: return Fold{"double", "-kInfinity", "scorch::scalar_ops::Maximum{}(a, b)", "a"};
    case OpId::float_min_dim: return Fold{"double", "kInfinity", "scorch::scalar_ops::Minimum{}(a, b)", "a"};
    case OpId::float_softmax:
    case OpId::float_log_softmax:
      return Fold{c, "-kInfinity", "((a != a || a > b) ? a : b)", "a", true, r.op == OpId::float_log_softmax};
    default: return std::nullopt;
  }
}

/// The reduction's helpers: the value at index i (computing the elementwise ops, storing their outputs when
/// keep), its combine and a group-wide fold over a warp or a block.
bool emit_reduce_helpers(const KernelPlan& plan, const Fold& fold, std::ostream& s) {
  const std::string& a = fold.acc;
  s << "#define kInfinity __longlong_as_double(0x7ff0000000000000LL)\n"
    << "__device__ __forceinline__ " << a << " combine(" << a << " a, " << a << " b) { return " << fold.combine
    << "; }\n"
    << "template <class A, class F> __device__ A warp_all(A v, F f) {\n"
    << "  for (int s = 16; s > 0; s >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, s));\n  return v;\n}\n"
    << "template <class A, class F> __device__ A block_all(A v, F f) {\n"
    << "  __shared__ A scratch[" << kFusedThreads / 32 << "];\n"
    << "  v = warp_all(v, f);\n  __syncthreads();\n"
    << "  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;\n  __syncthreads();\n"
    << "  v = scratch[0];\n  for (int w = 1; w < " << kFusedThreads / 32 << "; ++w) v = f(v, scratch[w]);\n"
    << "  return v;\n}\n"
    << "struct Combine { __device__ " << a << " operator()(" << a << " a, " << a
    << " b) const { return combine(a, b); } };\n"
    << "struct Sum { template <class A> __device__ A operator()(A a, A b) const { return a + b; } };\n"
    << "__device__ __forceinline__ void offsets_at(const FusedParams& p, long long i, long long* out) {\n";
  if (!plan.contiguous) {
    emit_offsets(plan, s, "  ");
    s << "  for (int k = 0; k < " << plan.leaves.size() << "; ++k) out[k] = o[k];\n";
  }
  s << "}\n"
    << "__device__ __forceinline__ " << a
    << " value_at(const FusedParams& p, long long i, const long long* o, bool keep) {\n";
  if (!emit_element(plan, s, "  ", true, true)) return false;
  s << "  return (" << a << ")" << value_name(plan.reduce->input) << ";\n}\n";
  return true;
}

/// Elements of a row each thread loads before using any, in a reduction's first pass.
constexpr int kRowBatch = 4;

/// The loop over a lane's or a row's elements: index `first + k * step` for k from start by stride. Along a row
/// (the innermost dim), each leaf's offset steps by its innermost stride from the row's first element's.
struct Walk {
  std::string start, stride, first, step;
  bool row = false;
  std::string index() const { return first + " + (long long)k * " + step; }
  std::string loop() const { return "for (int k = " + start + "; k < n; k += " + stride + ")"; }
};

/// Before a group's loops: the first element's offsets and the innermost strides (rows of a strided plan).
void emit_walk_start(const KernelPlan& plan, const Walk& w, std::ostream& s) {
  if (plan.contiguous || !w.row) return;
  size_t leaves = plan.leaves.size();
  s << "    long long first[" << leaves << "], step[" << leaves << "];\n"
    << "    offsets_at(p, " << w.first << ", first);\n"
    << "    for (int q = 0; q < " << leaves << "; ++q) step[q] = p.rank > 0 ? p.strides[q][p.rank - 1] : 0;\n";
}

/// value_at's call for element k of the walk (declaring its offsets first when the plan is strided).
std::string walk_value(const KernelPlan& plan, const Walk& w, bool keep) {
  std::string call =
      "value_at(p, " + w.index() + ", " + (plan.contiguous ? "nullptr" : "o") + ", " + (keep ? "true" : "false") + ")";
  if (plan.contiguous) return call;
  std::string leaves = std::to_string(plan.leaves.size());
  std::string offsets =
      w.row ? "long long o[" + leaves + "]; for (int q = 0; q < " + leaves + "; ++q) o[q] = first[q] + k * step[q];"
            : "long long o[" + leaves + "]; offsets_at(p, " + w.index() + ", o);";
  std::string lambda = "([&] { ";
  lambda += offsets;
  lambda += " return " + call + "; }())";
  return lambda;
}

/// The fold and the stores of one group (a lane, a warp's row or a block's row); all_of folds across the group.
void emit_group(const KernelPlan& plan, const Fold& fold, const Walk& w, const std::string& all_of,
                const std::string& out_index, const std::string& leader, std::ostream& s) {
  const std::string& a = fold.acc;
  std::string out =
      std::string("((") + storage_type(plan.reduce->dtype) + "*)p.out[" + std::to_string(plan.outputs.size()) + "])";
  emit_walk_start(plan, w, s);
  s << "    " << a << " acc = " << fold.identity << ";\n";
  if (w.row) {  // kRowBatch elements per step, all loaded before any is used: several loads in flight per thread
    std::string batch = std::to_string(kRowBatch), at = "const int k = k0 + u * " + w.stride + ";";
    s << "    for (int k0 = " << w.start << "; k0 < n; k0 += " << batch << " * " << w.stride << ") {\n"
      << "      " << a << " values[" << batch << "];\n"
      << "#pragma unroll\n      for (int u = 0; u < " << batch << "; ++u) { " << at
      << " if (k < n) values[u] = " << walk_value(plan, w, true) << "; }\n"
      << "#pragma unroll\n      for (int u = 0; u < " << batch << "; ++u) { " << at << " if (k < n) { "
      << (fold.softmax ? "if (p.red_cache) cached[k] = values[u]; " : "") << "acc = combine(acc, values[u]); } }\n"
      << "    }\n";
  } else {
    s << "    " << w.loop() << " acc = combine(acc, " << walk_value(plan, w, true) << ");\n";
  }
  s << "    acc = " << (all_of.empty() ? "acc" : all_of + "(acc, Combine{})") << ";\n";
  if (!fold.softmax) {
    DType d = plan.reduce->dtype;
    s << "    if (" << leader << ") {\n      const " << a << " a = acc;\n      const " << c_type(d)
      << " r = " << rounded(d, "(" + std::string(c_type(d)) + ")(" + fold.finish + ")") << ";\n      " << out << "["
      << out_index << "] = " << store_value(d, "r") << ";\n";
    size_t scalar = scalars_before_reduction(plan);
    emit_op_list(plan.epilogue, s, "      ", scalar, "e", epilogue_name);  // checked by plan_fits
    for (size_t k = 0; k < plan.epilogue_outputs.size(); ++k) {
      DType e = plan.epilogue_output_dtypes[k];
      s << "      ((" << storage_type(e) << "*)p.out[" << plan.outputs.size() + 1 + k << "])[" << out_index
        << "] = " << store_value(e, "e" + std::to_string(plan.epilogue_outputs[k])) << ";\n";
    }
    s << "    }\n";
    return;
  }
  std::string exp = a == "double" ? "exp" : "expf", log = a == "double" ? "log" : "logf";
  std::string result = fold.log ? "v - shift" : exp + "(v - m) * inv";
  s << "    const " << a << " m = acc;\n    " << a << " total = 0;\n";
  if (w.row) {  // the row's values kept in shared memory (softmax keeps exp(v - m) there after the second pass)
    s << "    if (p.red_cache) {\n"
      << "      " << w.loop() << " {\n        const " << a << " e = " << exp << "(cached[k] - m);\n"
      << (fold.log ? "" : "        cached[k] = e;\n") << "        total += e;\n      }\n    } else {\n";
  }
  s << "    " << w.loop() << " total += " << exp << "(" << walk_value(plan, w, false) << " - m);\n";
  if (w.row) s << "    }\n";
  s << "    total = " << (all_of.empty() ? "total" : all_of + "(total, Sum{})") << ";\n"
    << "    const " << a << " shift = m + " << log << "(total), inv = " << a << "(1) / total;\n";
  if (w.row) {
    s << "    if (p.red_cache) {\n"
      << "      " << w.loop() << " " << out << "[" << w.index()
      << "] = " << store_value(plan.reduce->dtype, fold.log ? "cached[k] - shift" : "cached[k] * inv") << ";\n"
      << "    } else {\n";
  }
  s << "    " << w.loop() << " {\n      const " << a << " v = " << walk_value(plan, w, false) << ";\n"
    << "      " << out << "[" << w.index() << "] = " << store_value(plan.reduce->dtype, result) << ";\n    }\n";
  if (w.row) s << "    }\n";
}

std::optional<std::string> reduction_source(const KernelPlan& plan) {
  auto fold = fold_of(*plan.reduce);
  if (!fold || !is_float_dtype(plan.reduce->dtype)) return std::nullopt;
  std::ostringstream s;
  emit_prelude(s);
  if (!emit_reduce_helpers(plan, *fold, s)) return std::nullopt;
  s << "extern \"C\" __global__ void " << kFusedEntry << "(const __grid_constant__ FusedParams p) {\n"
    << "  extern __shared__ " << fold->acc << " row_cache[];\n"
    << "  const long long n = p.red_n, inner = p.red_inner, lanes = p.n / n;\n"
    << "  if (p.red_mode == " << static_cast<long long>(ReduceMode::lanes) << ") {\n"
    << "    const long long lane = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    << "    if (lane >= lanes) return;\n"
    << "    const long long o = lane / inner, base = o * n * inner + (lane - o * inner);\n";
  emit_group(plan, *fold, {"0", "1", "base", "inner"}, "", "lane", "true", s);
  s << "  } else if (p.red_mode == " << static_cast<long long>(ReduceMode::warp_rows) << ") {\n"
    << "    const long long row = (long long)blockIdx.x * " << kFusedThreads / 32 << " + threadIdx.x / 32;\n"
    << "    if (row >= lanes) return;  // the whole warp leaves together\n"
    << "    const long long base = row * n;\n"
    << "    " << fold->acc << "* const cached = row_cache + (threadIdx.x / 32) * n;\n";
  emit_group(plan, *fold, {"threadIdx.x % 32", "32", "base", "1", true}, "warp_all", "row", "threadIdx.x % 32 == 0", s);
  s << "  } else {\n"
    << "    const long long base = (long long)blockIdx.x * n;\n"
    << "    " << fold->acc << "* const cached = row_cache;\n";
  emit_group(plan, *fold, {"threadIdx.x", "blockDim.x", "base", "1", true}, "block_all", "blockIdx.x",
             "threadIdx.x == 0", s);
  s << "  }\n}\n";
  return s.str();
}

}  // namespace

bool is_generated_reduction(OpId op) {
  switch (op) {
    case OpId::float_sum_dim:
    case OpId::float_mean_dim:
    case OpId::float_max_dim:
    case OpId::float_min_dim:
    case OpId::float_softmax:
    case OpId::float_log_softmax: return true;
    default: return false;
  }
}

std::optional<std::string> generate_cuda_source(const KernelPlan& plan) {
  if (!plan_fits(plan)) return std::nullopt;
  return plan.reduce ? reduction_source(plan) : elementwise_source(plan);
}

void fill_scalars(const KernelPlan& plan, FusedParams& params) {
  size_t slot = 0;  // the ops before the reduction, then those after it: the order the source reads them
  for (const auto* ops : {&plan.ops, &plan.epilogue})
    for (const KernelOp& k : *ops)
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
