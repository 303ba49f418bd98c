// The multi-tensor optimizer steps on the device (optim.comp): one dispatch per dtype (and per 65535 workgroups of
// 4096 values) steps every parameter, where backend/provided's compositions record about 16 dispatches per parameter
// (Adam) or 5 (SGD with momentum). A result overwrites its input only when that input is uniquely owned and dense
// (reusable), as elementwise ops do.
#include <cmath>
#include <cstring>
#include <map>

#include "scorch/backend/provided/optim_defaults.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/backends/vulkan/vulkan_backend.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

constexpr int64_t kChunk = 4096;       // values per workgroup (optim.comp's CHUNK)
constexpr int64_t kMaxGroups = 65535;  // workgroups per dispatch

enum OptimMode : int32_t { kAdam = 0, kSgd = 1 };
enum Flags : int32_t { kDecoupled = 1, kDecays = 2, kWithMomentum = 4, kHasVelocity = 8, kNesterov = 16 };

/// optim.comp's StepParams header (std430), then one StepEntry per tensor.
struct StepHeader {
  float narrow[10];
  int32_t flags, pad0;
  uint32_t wide[10][2];
  int32_t count, pad;
};
static_assert(sizeof(StepHeader) == 136, "must match optim.comp");
struct StepEntry {
  uint32_t addr[7][2];
  int32_t numel, first_group;
};
static_assert(sizeof(StepEntry) == 64, "must match optim.comp");

StepHeader step_header(std::initializer_list<double> coefficients, int32_t flags) {
  StepHeader h{};
  int k = 0;
  for (double c : coefficients) {
    h.narrow[k] = static_cast<float>(c);
    uint64_t bits;
    std::memcpy(&bits, &c, sizeof(bits));
    split_words(h.wide[k++], bits);
  }
  h.flags = flags;
  return h;
}

/// One tensor's step: its operands' addresses (optim.comp's order; 0 where absent) and its values.
struct StepOperands {
  uint64_t addr[7];
  int64_t numel;
};

/// Records the steps (tensors of dtype on ctx's device) in dispatches of at most kMaxGroups workgroups; a tensor
/// longer than one dispatch's share is split into pieces at offset addresses.
void run_steps(OptimMode mode, const StepHeader& header, const std::vector<StepOperands>& steps, DType dtype,
               detail::Context& ctx) {
  std::vector<StepEntry> table;
  int64_t groups = 0;
  auto flush = [&] {
    if (table.empty()) return;
    StepHeader h = header;
    h.count = static_cast<int32_t>(table.size());
    std::vector<std::byte> block(sizeof(h) + table.size() * sizeof(StepEntry));
    std::memcpy(block.data(), &h, sizeof(h));
    std::memcpy(block.data() + sizeof(h), table.data(), table.size() * sizeof(StepEntry));
    uint32_t push[2] = {0, 0};  // the parameter block's address
    int32_t spec[] = {static_cast<int32_t>(dtype), mode};
    ctx.dispatch_with_params(variant("optim", {dtype}), spec, block.data(), block.size(), push, sizeof(push),
                             static_cast<uint32_t>(groups));
    table.clear();
    groups = 0;
  };
  for (const StepOperands& step : steps) {
    for (int64_t start = 0; start < step.numel; start += kChunk * kMaxGroups) {
      int64_t part = std::min(step.numel - start, kChunk * kMaxGroups), need = (part + kChunk - 1) / kChunk;
      if (groups + need > kMaxGroups) flush();
      StepEntry piece{};
      uint64_t skip = dtype_size(dtype) * static_cast<uint64_t>(start);
      for (int k = 0; k < 7; ++k) split_words(piece.addr[k], step.addr[k] ? step.addr[k] + skip : 0);
      piece.numel = static_cast<int32_t>(part);
      piece.first_group = static_cast<int32_t>(groups);
      table.push_back(piece);
      groups += need;
    }
  }
  flush();
}

/// The steps grouped by (device, dtype), each group with its device's context.
class StepGroups {
 public:
  /// Adds a step over operands (nullptr where absent), unless the tensor is empty.
  void add(const T& param, std::initializer_list<const T*> operands) {
    if (param.numel() == 0) return;
    StepOperands step{{}, static_cast<int64_t>(param.numel())};
    int k = 0;
    for (const T* x : operands) step.addr[k++] = x ? address_of(*x) : 0;
    auto& group = groups_[{param.device().index, param.dtype()}];
    group.first = &context_of(param);
    group.second.push_back(step);
  }
  void run(OptimMode mode, const StepHeader& header) {
    for (auto& [key, group] : groups_) run_steps(mode, header, group.second, key.second, *group.first);
  }

 private:
  std::map<std::pair<int, DType>, std::pair<detail::Context*, std::vector<StepOperands>>> groups_;
};

// x in dtype, contiguous from its buffer's start: optim.comp takes bare buffer addresses.
T dense(T x, DType dtype) { return dense_from_start(x.dtype() == dtype ? std::move(x) : cast(std::move(x), dtype)); }

// A tensor of shape and dtype for a result computed from x: x itself when it may be overwritten.
T update_target(const T& x, const Shape& shape, DType dtype) {
  return reusable(x, shape, dtype) ? x : T(shape, dtype, x.device());
}

}  // namespace

std::vector<AdamUpdate<T>> adam_update_many(std::vector<T> params, std::vector<T> grads, std::vector<T> moments_1,
                                            std::vector<T> moments_2, const AdamStep& s) {
  const char* op = "adam_update_many";
  provided::check_adam_lists(op, params, grads, moments_1, moments_2);
  std::vector<AdamUpdate<T>> out(params.size());
  StepGroups groups;
  for (size_t i = 0; i < params.size(); ++i) {
    DType dtype = params[i].dtype();
    T p = dense(std::move(params[i]), dtype), g = dense(std::move(grads[i]), dtype);
    T m = dense(std::move(moments_1[i]), dtype), v = dense(std::move(moments_2[i]), dtype);
    const Shape& shape = p.shape();
    out[i] = {update_target(p, shape, dtype), update_target(m, shape, dtype), update_target(v, shape, dtype)};
    groups.add(p, {&p, &g, &m, &v, &out[i].param, &out[i].moment_1, &out[i].moment_2});
    // the operands live until the dispatches are recorded: no later allocation may take their buffers first
    params[i] = std::move(p), grads[i] = std::move(g), moments_1[i] = std::move(m), moments_2[i] = std::move(v);
  }
  int32_t flags = (s.decoupled ? kDecoupled : 0) | (s.weight_decay != 0 ? kDecays : 0);
  groups.run(kAdam,
             step_header({s.lr, s.beta_1, s.beta_2, 1.0 - s.beta_1, 1.0 - s.beta_2, s.epsilon, s.weight_decay,
                          s.lr * s.weight_decay, 1.0 - std::pow(s.beta_1, s.step), 1.0 - std::pow(s.beta_2, s.step)},
                         flags));
  return out;
}

std::vector<SgdUpdate<T>> sgd_update_many(std::vector<T> params, std::vector<T> grads, std::vector<T> velocities,
                                          const SgdStep& s) {
  const char* op = "sgd_update_many";
  bool has_velocity = provided::check_sgd_lists(op, params, grads, velocities);
  std::vector<SgdUpdate<T>> out(params.size());
  StepGroups groups;
  for (size_t i = 0; i < params.size(); ++i) {
    DType dtype = params[i].dtype();
    T p = dense(std::move(params[i]), dtype), g = dense(std::move(grads[i]), dtype);
    const Shape& shape = p.shape();
    out[i].param = update_target(p, shape, dtype);
    if (has_velocity) velocities[i] = dense(std::move(velocities[i]), dtype);
    if (s.with_momentum)
      out[i].velocity = has_velocity ? update_target(velocities[i], shape, dtype) : T(shape, dtype, p.device());
    const T* velocity = has_velocity && s.with_momentum ? &velocities[i] : nullptr;
    groups.add(p, {&p, &g, velocity, &out[i].param, out[i].velocity ? &*out[i].velocity : nullptr});
    params[i] = std::move(p), grads[i] = std::move(g);
  }
  int32_t flags = (s.weight_decay != 0 ? kDecays : 0) | (s.with_momentum ? kWithMomentum : 0) |
                  (has_velocity ? kHasVelocity : 0) | (s.nesterov ? kNesterov : 0);
  groups.run(kSgd, step_header({s.lr, s.momentum, 1.0 - s.dampening, 0, 0, 0, s.weight_decay}, flags));
  return out;
}

}  // namespace scorch::backends::vulkan::kernels
