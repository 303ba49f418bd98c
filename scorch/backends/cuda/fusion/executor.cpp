// Generated fused kernels on Cuda (see executor.h).
#include "scorch/backends/cuda/fusion/executor.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "scorch/backends/cuda/jit.h"
#include "scorch/backends/cuda/kernels/kernels.h"
#include "scorch/fusion/cuda_codegen.h"
#include "scorch/fusion/kernel_disk_cache.h"

namespace scorch::fusion {
namespace {

using backends::cuda::CudaTensor;

const CudaTensor& primitive(const Value<Cuda>& v) {
  return std::visit([](const CudaTensor& t) -> const CudaTensor& { return t; }, v.primitive);
}

/// The kernel plan of a program: leaves and op inputs by position; a closing reduction becomes plan.reduce.
KernelPlan plan_of(const Program<Cuda>& program) {
  KernelPlan plan;
  std::unordered_map<const Node<Cuda>*, int> leaf_index;
  for (size_t k = 0; k < program.leaves.size(); ++k) {
    leaf_index[program.leaves[k]] = static_cast<int>(k);
    plan.leaves.push_back(program.leaves[k]->dtype);
  }
  auto input_of = [&](const Node<Cuda>* in) {
    auto it = program.position.find(in);
    return it != program.position.end() ? static_cast<int>(it->second) : -leaf_index[in] - 1;
  };
  const Node<Cuda>* reduction = program.reduction();
  size_t reduced_at = reduction ? program.position.at(reduction) : program.ops.size();
  for (size_t i = 0; i < program.ops.size(); ++i) {
    if (i == reduced_at) continue;
    const Node<Cuda>* node = program.ops[i];
    KernelOp op{
        node->pending->op(), {}, node->pending->record.scalars(), node->pending->inputs.front()->dtype, node->dtype};
    for (auto& in : node->pending->inputs) {
      int at = input_of(in.get());
      // After the reduction: -1 is its result, k >= 0 the k-th op after it.
      op.inputs.push_back(i < reduced_at ? at : at == static_cast<int>(reduced_at) ? -1 : at - int(reduced_at) - 1);
    }
    (i < reduced_at ? plan.ops : plan.epilogue).push_back(std::move(op));
  }
  for (size_t i : program.outputs) {
    if (i == reduced_at) continue;
    if (i < reduced_at) {
      plan.outputs.push_back(i);
      plan.output_dtypes.push_back(program.ops[i]->dtype);
    } else {
      plan.epilogue_outputs.push_back(i - reduced_at - 1);
      plan.epilogue_output_dtypes.push_back(program.ops[i]->dtype);
    }
  }
  if (reduction)
    plan.reduce =
        KernelReduce{reduction->pending->op(), input_of(reduction->pending->inputs[0].get()), reduction->dtype};
  return plan;
}

/// Compiled kernels by source and device (loaded from the disk cache when there); a source that failed to compile
/// maps to nullptr.
class KernelCache {
 public:
  const backends::cuda::jit::Kernel* get(const std::string& source, int device) {
    std::lock_guard lock(mutex_);
    auto key = std::make_pair(device, source);
    if (auto it = kernels_.find(key); it != kernels_.end()) return it->second.get();
    auto& slot = kernels_[key];
    if (const char* dump = std::getenv("SCORCH_FUSION_DUMP"); dump && *dump == '1')
      std::fprintf(stderr, "[fusion] generated kernel:\n%s\n", source.c_str());
    try {
      int arch = backends::cuda::jit::compute_capability(device);
      std::string key = source + "\n// sm_" + std::to_string(arch) + "\n";
      if (auto code = disk_.load(key)) {
        try {
          slot = std::make_unique<backends::cuda::jit::Kernel>(*code, kFusedEntry, device);
          return slot.get();
        } catch (const Error&) {}  // unloadable: compiled again and rewritten below
      }
      std::string code = backends::cuda::jit::compile(source, "scorch_fused.cu", arch);
      slot = std::make_unique<backends::cuda::jit::Kernel>(code, kFusedEntry, device);
      disk_.store(key, code);
    } catch (const Error& e) {
      if (!warned_) std::fprintf(stderr, "[fusion] a fused kernel failed to compile; running unfused: %s\n", e.what());
      warned_ = true;
    }
    return slot.get();
  }

 private:
  std::mutex mutex_;
  bool warned_ = false;
  KernelDiskCache disk_ = KernelDiskCache::from_environment();
  std::map<std::pair<int, std::string>, std::unique_ptr<backends::cuda::jit::Kernel>> kernels_;
};

KernelCache& cache() {
  static KernelCache c;
  return c;
}

/// The program's shape with adjacent dims merged where every operand steps through them as one; strides per leaf.
/// False when it has more dims than FusedParams holds.
bool fill_geometry(const Shape& shape, const std::vector<backends::cuda::Strides>& leaves, FusedParams& p,
                   bool& contiguous) {
  int rank = 0;
  backends::cuda::Strides out_strides{};
  int64_t step = 1;
  for (size_t d = shape.rank(); d-- > 0;) out_strides[d] = step, step *= static_cast<int64_t>(shape[d]);
  std::vector<int64_t> out_st(8);
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = rank > 0 && out_st[rank - 1] == out_strides[d] * static_cast<int64_t>(shape[d]);
    for (size_t k = 0; merge && k < leaves.size(); ++k)
      merge = p.strides[k][rank - 1] == leaves[k][d] * static_cast<int64_t>(shape[d]);
    if (merge) {
      p.dims[rank - 1] *= static_cast<long long>(shape[d]);
      out_st[rank - 1] = out_strides[d];
      for (size_t k = 0; k < leaves.size(); ++k) p.strides[k][rank - 1] = leaves[k][d];
      continue;
    }
    if (rank == 8) return false;
    p.dims[rank] = static_cast<long long>(shape[d]);
    out_st[rank] = out_strides[d];
    for (size_t k = 0; k < leaves.size(); ++k) p.strides[k][rank] = leaves[k][d];
    ++rank;
  }
  p.rank = rank;
  contiguous = rank <= 1;
  for (size_t k = 0; contiguous && k < leaves.size(); ++k) contiguous = rank == 0 || p.strides[k][0] == 1;
  return true;
}

/// True when every operand's pointer is aligned to its pack of kFusedLanes elements.
bool packs_aligned(const FusedParams& p, size_t leaves, size_t outputs, const KernelPlan& plan) {
  auto aligned = [](const void* ptr, DType d) {
    return reinterpret_cast<uintptr_t>(ptr) % (kFusedLanes * dtype_size(d)) == 0;
  };
  for (size_t k = 0; k < leaves; ++k)
    if (!aligned(p.in[k], plan.leaves[k])) return false;
  for (size_t k = 0; k < outputs; ++k)
    if (!aligned(p.out[k], plan.output_dtypes[k])) return false;
  return true;
}

/// The plan's structure as bytes: everything its generated source depends on (ops, operand positions, dtypes,
/// which scalars are floats, outputs, the contiguous path, the reduction), not scalar values or strides.
std::string structure_key(const KernelPlan& plan, int device) {
  std::string key;
  auto put = [&](long long v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto put_ops = [&](const std::vector<KernelOp>& ops, const std::vector<size_t>& outputs,
                     const std::vector<DType>& dtypes) {
    for (const KernelOp& op : ops) {
      put(static_cast<long long>(op.op));
      put(static_cast<long long>(op.input_dtype));
      put(op.output_dtype ? static_cast<long long>(*op.output_dtype) : -1);
      for (int in : op.inputs) put(in);
      for (const Scalar& v : op.scalars) put(v.is_float() ? -2 : -3);
      put(-4);
    }
    for (size_t k = 0; k < outputs.size(); ++k)
      put(static_cast<long long>(outputs[k])), put(static_cast<long long>(dtypes[k]));
  };
  put(device);
  put(plan.contiguous);
  for (DType d : plan.leaves) put(static_cast<long long>(d));
  put(-1);
  put_ops(plan.ops, plan.outputs, plan.output_dtypes);
  if (plan.reduce)
    put(static_cast<long long>(plan.reduce->op)), put(plan.reduce->input),
        put(static_cast<long long>(plan.reduce->dtype));
  put(-5);
  put_ops(plan.epilogue, plan.epilogue_outputs, plan.epilogue_output_dtypes);
  return key;
}

/// Kernels by plan structure (nullptr: no generated kernel), so a repeated program skips writing its source.
const backends::cuda::jit::Kernel* kernel_for(const KernelPlan& plan, int device) {
  static std::mutex mutex;
  static std::unordered_map<std::string, const backends::cuda::jit::Kernel*> kernels;
  std::string key = structure_key(plan, device);
  {
    std::lock_guard lock(mutex);
    if (auto it = kernels.find(key); it != kernels.end()) return it->second;
  }
  auto source = generate_cuda_source(plan);
  const backends::cuda::jit::Kernel* kernel = source ? cache().get(*source, device) : nullptr;
  std::lock_guard lock(mutex);
  kernels.emplace(std::move(key), kernel);
  return kernel;
}

/// A kernel ready to launch: its parameters with leaves, geometry and scalars filled, and its plan.
struct Prepared {
  FusedParams params{};
  KernelPlan plan;
  const backends::cuda::jit::Kernel* kernel = nullptr;
  int device = 0;
};

/// Fills the kernel for program's ops over shape (every op's, or the reduction's input's); nullopt when it has
/// no generated kernel (too many operands or dims, an op without a recipe, a compile failure).
std::optional<Prepared> prepare(const Program<Cuda>& program, const Shape& shape) {
  if (program.leaves.empty() || program.leaves.size() > kMaxFusedLeaves) return std::nullopt;
  Prepared k;
  std::vector<backends::cuda::Strides> strides;
  for (size_t i = 0; i < program.leaves.size(); ++i) {
    const CudaTensor& leaf = primitive(*program.leaves[i]->value);
    k.params.in[i] = leaf.raw();
    strides.push_back(backends::cuda::broadcast_strides(leaf, shape));
  }
  k.plan = plan_of(program);
  if (!fill_geometry(shape, strides, k.params, k.plan.contiguous)) return std::nullopt;
  k.device = primitive(*program.leaves.front()->value).device().index;
  k.kernel = kernel_for(k.plan, k.device);
  if (!k.kernel) return std::nullopt;
  fill_scalars(k.plan, k.params);
  k.params.n = static_cast<long long>(shape.num_elements());
  return k;
}

/// A new tensor for each output of program (elementwise ones of shape, then the reduction's), in out[] order.
std::vector<Value<Cuda>> allocate_outputs(const Program<Cuda>& program, const Shape& shape, Prepared& k) {
  std::vector<Value<Cuda>> outputs;
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    Node<Cuda>* op = program.ops[program.outputs[i]];
    CudaTensor out(op->shape, op->dtype, backends::cuda::CudaDevice{k.device});
    k.params.out[i] = out.raw();
    outputs.push_back(Value<Cuda>::of_kind(op->kind, std::move(out)));
  }
  return outputs;
}

}  // namespace

std::vector<Value<Cuda>> Executor<Cuda>::run(const Program<Cuda>& program, Stats& stats) {
  if (!program.uniform_shape() || program.ops.size() < 2) return run_unfused(program);
  const Shape& shape = program.ops.front()->shape;
  size_t n = shape.num_elements();
  if (n == 0 || program.outputs.size() > kMaxFusedOutputs) return run_unfused(program);
  auto k = prepare(program, shape);
  if (!k) return run_unfused(program);
  auto outputs = allocate_outputs(program, shape, *k);
  size_t per_thread = k->plan.contiguous ? kFusedLanes : 1;
  if (k->plan.contiguous)
    k->params.vec = packs_aligned(k->params, program.leaves.size(), program.outputs.size(), k->plan);
  void* args[] = {&k->params};
  k->kernel->launch(static_cast<unsigned>((n + kFusedThreads * per_thread - 1) / (kFusedThreads * per_thread)),
                    kFusedThreads, args);
  ++stats.fused_programs;
  return outputs;
}

bool Executor<Cuda>::fuses_after(OpId reduction) {
  return reduction == OpId::float_sum_dim || reduction == OpId::float_mean_dim || reduction == OpId::float_max_dim ||
         reduction == OpId::float_min_dim;
}

std::pair<size_t, Value<Cuda>> Executor<Cuda>::run_head(const Program<Cuda>& program,
                                                        const std::vector<Node<Cuda>*>& chain, Stats& stats) {
  const Node<Cuda>* product = chain.front();
  backends::cuda::kernels::MatmulEpilogue epilogue;
  size_t folded = 1;
  for (size_t i = 1; i < chain.size() && !epilogue.relu; ++i) {
    const PendingOp<Cuda>& op = *chain[i]->pending;
    if (chain[i]->dtype != product->dtype || chain[i]->shape != product->shape) break;
    if (op.op() == OpId::float_relu) {
      epilogue.relu = true;
    } else if (op.op() == OpId::float_mul_scalar && i == 1) {
      epilogue.alpha = op.record.scalars().at(0).to_double();
    } else if (op.op() == OpId::float_add) {
      const Node<Cuda>* other = op.inputs[op.inputs[0].get() == chain[i - 1] ? 1 : 0].get();
      if (other == chain[i - 1] || other->pending || other->dtype != product->dtype) break;
      const CudaTensor& value = primitive(*other->value);
      bool row = other->shape.rank() >= 1 && other->shape.num_elements() == product->shape[1] &&
                 other->shape[other->shape.rank() - 1] == product->shape[1];
      if (other->shape == product->shape && !epilogue.residual) epilogue.residual = &value;
      else if (row && !epilogue.bias) epilogue.bias = &value;
      else break;
    } else {
      break;
    }
    folded = i + 1;
  }
  if (folded > 1) {
    const CudaTensor& a = primitive(*product->pending->inputs[0]->value);
    const CudaTensor& b = primitive(*product->pending->inputs[1]->value);
    if (auto out = backends::cuda::kernels::matmul_with_epilogue(a, b, epilogue)) {
      ++stats.fused_programs;
      return {folded, Value<Cuda>::of<Float>(std::move(*out))};
    }
  }
  return UnfusedExecutor<Cuda>::run_head(program, chain, stats);
}

std::optional<std::vector<Value<Cuda>>> Executor<Cuda>::run_reduction(const Program<Cuda>& program, Stats& stats) {
  const Node<Cuda>* reduction = program.reduction();
  if (program.ops.size() < 2 || !is_generated_reduction(reduction->pending->op())) return std::nullopt;
  const Shape& shape = reduction->pending->inputs.front()->shape;
  size_t reduced_at = program.position.at(reduction);
  if (reduced_at + 1 < program.ops.size() && !fuses_after(reduction->pending->op())) return std::nullopt;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    if (i != reduced_at && program.ops[i]->shape != (i < reduced_at ? shape : reduction->shape)) return std::nullopt;
    if (i > reduced_at)  // an op after the reduction reads only it and the ops after it
      for (auto& in : program.ops[i]->pending->inputs)
        if (auto at = program.position.find(in.get()); at == program.position.end() || at->second < reduced_at)
          return std::nullopt;
  }
  size_t dim = *reduction->pending->reduce_dim;
  long long n = static_cast<long long>(shape[dim]), inner = 1, lanes = 1;
  for (size_t d = dim + 1; d < shape.rank(); ++d) inner *= static_cast<long long>(shape[d]);
  if (n == 0 || n > INT32_MAX || shape.num_elements() == 0 || program.outputs.size() > kMaxFusedOutputs)
    return std::nullopt;  // the kernel counts along the reduced dim in int
  lanes = static_cast<long long>(shape.num_elements()) / n;
  // Few long lanes leave the device idle: the eager reduction splits them (the input's ops still fuse).
  if (lanes < 2 * kFusedThreads && n > 4 * kWarpRowMax) return std::nullopt;
  auto k = prepare(program, shape);
  if (!k) return std::nullopt;
  auto outputs = allocate_outputs(program, shape, *k);
  ReduceMode mode = inner > 1 ? ReduceMode::lanes : n <= kWarpRowMax ? ReduceMode::warp_rows : ReduceMode::block_rows;
  k->params.red_n = n;
  k->params.red_inner = inner;
  k->params.red_mode = static_cast<long long>(mode);
  long long blocks = mode == ReduceMode::block_rows  ? lanes
                     : mode == ReduceMode::warp_rows ? (lanes + kFusedThreads / 32 - 1) / (kFusedThreads / 32)
                                                     : (lanes + kFusedThreads - 1) / kFusedThreads;
  // A softmax over rows keeps each row's values in shared memory between its three passes when they fit.
  size_t rows_per_block = mode == ReduceMode::warp_rows ? kFusedThreads / 32 : 1;
  size_t cache_bytes = rows_per_block * static_cast<size_t>(n) * (reduction->dtype == DType::F64 ? 8 : 4);
  bool softmax = reduction->pending->op() == OpId::float_softmax || reduction->pending->op() == OpId::float_log_softmax;
  k->params.red_cache = softmax && mode != ReduceMode::lanes && cache_bytes <= kFusedRowCacheBytes;
  void* args[] = {&k->params};
  k->kernel->launch(static_cast<unsigned>(blocks), kFusedThreads, args, k->params.red_cache ? cache_bytes : 0);
  ++stats.fused_programs;
  return outputs;
}

}  // namespace scorch::fusion
