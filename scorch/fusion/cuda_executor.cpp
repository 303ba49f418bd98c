// Generated fused kernels on Cuda (see cuda_executor.h).
#include "scorch/fusion/cuda_executor.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "scorch/backends/cuda/jit.h"
#include "scorch/fusion/cuda_codegen.h"
#include "scorch/fusion/kernel_disk_cache.h"

namespace scorch::fusion {
namespace {

using backends::cuda::CudaTensor;

const CudaTensor& primitive(const Value<Cuda>& v) {
  return std::visit([](const CudaTensor& t) -> const CudaTensor& { return t; }, v.primitive);
}

/// The kernel plan of a program: leaves and op inputs by position.
KernelPlan plan_of(const Program<Cuda>& program) {
  KernelPlan plan;
  std::unordered_map<const Node<Cuda>*, int> leaf_index;
  for (size_t k = 0; k < program.leaves.size(); ++k) {
    leaf_index[program.leaves[k]] = static_cast<int>(k);
    plan.leaves.push_back(program.leaves[k]->dtype);
  }
  for (auto* node : program.ops) {
    KernelOp op{node->pending->op, {}, node->pending->scalars, node->pending->inputs.front()->dtype};
    for (auto& in : node->pending->inputs) {
      auto it = program.position.find(in.get());
      op.inputs.push_back(it != program.position.end() ? static_cast<int>(it->second) : -leaf_index[in.get()] - 1);
    }
    plan.ops.push_back(std::move(op));
  }
  plan.outputs = program.outputs;
  for (size_t i : program.outputs) plan.output_dtypes.push_back(program.ops[i]->dtype);
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

}  // namespace

std::vector<Value<Cuda>> Executor<Cuda>::run(const Program<Cuda>& program, Stats& stats) {
  if (!program.uniform_shape() || program.ops.size() < 2) return run_unfused(program);
  const Shape& shape = program.ops.front()->shape;
  size_t n = shape.num_elements();
  if (n == 0 || program.leaves.empty() || program.leaves.size() > kMaxFusedLeaves ||
      program.outputs.size() > kMaxFusedOutputs)
    return run_unfused(program);
  FusedParams params{};
  std::vector<backends::cuda::Strides> strides;
  for (size_t k = 0; k < program.leaves.size(); ++k) {
    const CudaTensor& leaf = primitive(*program.leaves[k]->value);
    params.in[k] = leaf.raw();
    strides.push_back(backends::cuda::broadcast_strides(leaf, shape));
  }
  KernelPlan plan = plan_of(program);
  if (!fill_geometry(shape, strides, params, plan.contiguous)) return run_unfused(program);
  auto source = generate_cuda_source(plan);
  if (!source) return run_unfused(program);
  int device = primitive(*program.leaves.front()->value).device().index;
  const auto* kernel = cache().get(*source, device);
  if (!kernel) return run_unfused(program);
  fill_scalars(plan, params);
  params.n = static_cast<long long>(n);
  std::vector<Value<Cuda>> outputs;
  for (size_t k = 0; k < program.outputs.size(); ++k) {
    Node<Cuda>* op = program.ops[program.outputs[k]];
    CudaTensor out(shape, op->dtype, backends::cuda::CudaDevice{device});
    params.out[k] = out.raw();
    outputs.push_back(Value<Cuda>::of_kind(op->kind, std::move(out)));
  }
  size_t per_thread = plan.contiguous ? kFusedLanes : 1;
  if (plan.contiguous) params.vec = packs_aligned(params, program.leaves.size(), program.outputs.size(), plan);
  void* args[] = {&params};
  kernel->launch(static_cast<unsigned>((n + 256 * per_thread - 1) / (256 * per_thread)), 256, args);
  ++stats.fused_programs;
  return outputs;
}

}  // namespace scorch::fusion
