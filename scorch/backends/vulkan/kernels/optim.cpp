// The multi-tensor Adam/AdamW step on the device (optim.comp): one dispatch per dtype (and per 65535 workgroups of
// 4096 values) steps every parameter, where backend/provided's composition records about 16 dispatches per parameter.
// A result overwrites its input only when that input is uniquely owned and dense (reusable), as elementwise ops do.
#include <cmath>
#include <cstring>
#include <map>

#include "scorch/backend/provided/optim_defaults.h"
#include "scorch/backends/vulkan/kernels/dispatch.h"
#include "scorch/gen/vulkan_kernel_ops.h"

namespace scorch::backends::vulkan::kernels {
using T = VulkanTensor;

namespace {

constexpr int64_t kChunk = 4096;         // values per workgroup (optim.comp's CHUNK)
constexpr int64_t kMaxGroups = 65535;   // workgroups per dispatch

/// optim.comp's AdamParams header (std430), then one AdamEntry per tensor.
struct AdamHeader {
  float narrow[10];
  int32_t decoupled, decays;
  uint32_t wide[10][2];
  int32_t count, pad;
};
static_assert(sizeof(AdamHeader) == 136, "must match optim.comp");
struct AdamEntry {
  uint32_t addr[7][2];
  int32_t numel, first_group;
};
static_assert(sizeof(AdamEntry) == 64, "must match optim.comp");

AdamHeader adam_header(const AdamStep& s) {
  double c[10] = {s.lr,
                  s.beta_1,
                  s.beta_2,
                  1.0 - s.beta_1,
                  1.0 - s.beta_2,
                  s.epsilon,
                  s.weight_decay,
                  s.lr * s.weight_decay,
                  1.0 - std::pow(s.beta_1, s.step),
                  1.0 - std::pow(s.beta_2, s.step)};
  AdamHeader h{};
  for (int k = 0; k < 10; ++k) {
    h.narrow[k] = static_cast<float>(c[k]);
    uint64_t bits;
    std::memcpy(&bits, &c[k], sizeof(bits));
    split_words(h.wide[k], bits);
  }
  h.decoupled = s.decoupled ? 1 : 0;
  h.decays = s.weight_decay != 0 ? 1 : 0;
  return h;
}

/// One tensor's step: its seven operands' addresses (optim.comp's order) and its values.
struct AdamOperands {
  uint64_t addr[7];
  int64_t numel;
};

/// Records the steps (tensors of dtype on ctx's device) in dispatches of at most kMaxGroups workgroups; a tensor
/// longer than one dispatch's share is split into pieces at offset addresses.
void run_adam(const AdamHeader& header, const std::vector<AdamOperands>& steps, DType dtype, detail::Context& ctx) {
  std::vector<AdamEntry> table;
  int64_t groups = 0;
  auto flush = [&] {
    if (table.empty()) return;
    AdamHeader h = header;
    h.count = static_cast<int32_t>(table.size());
    std::vector<std::byte> block(sizeof(h) + table.size() * sizeof(AdamEntry));
    std::memcpy(block.data(), &h, sizeof(h));
    std::memcpy(block.data() + sizeof(h), table.data(), table.size() * sizeof(AdamEntry));
    uint32_t push[2] = {0, 0};  // the parameter block's address
    int32_t spec[] = {static_cast<int32_t>(dtype)};
    ctx.dispatch_with_params(variant("optim", {dtype}), spec, block.data(), block.size(), push, sizeof(push),
                             static_cast<uint32_t>(groups));
    table.clear();
    groups = 0;
  };
  for (const AdamOperands& step : steps) {
    for (int64_t start = 0; start < step.numel; start += kChunk * kMaxGroups) {
      int64_t part = std::min(step.numel - start, kChunk * kMaxGroups), need = (part + kChunk - 1) / kChunk;
      if (groups + need > kMaxGroups) flush();
      AdamEntry piece{};
      for (int k = 0; k < 7; ++k) split_words(piece.addr[k], step.addr[k] + dtype_size(dtype) * uint64_t(start));
      piece.numel = static_cast<int32_t>(part);
      piece.first_group = static_cast<int32_t>(groups);
      table.push_back(piece);
      groups += need;
    }
  }
  flush();
}

T dense(T x, DType dtype) { return contiguous(x.dtype() == dtype ? std::move(x) : cast(std::move(x), dtype)); }

// A tensor of shape and dtype for a result computed from x: x itself when it may be overwritten.
T output_for(const T& x, const Shape& shape, DType dtype) {
  return reusable(x, shape, dtype) ? x : T(shape, dtype, x.device());
}

}  // namespace

std::vector<AdamUpdate<T>> adam_update_many(std::vector<T> params, std::vector<T> grads, std::vector<T> moments_1,
                                            std::vector<T> moments_2, const AdamStep& s) {
  const char* op = "adam_update_many";
  provided::check_update_list(op, params, grads, "gradients");
  provided::check_update_list(op, params, moments_1, "first moments");
  provided::check_update_list(op, params, moments_2, "second moments");
  std::vector<AdamUpdate<T>> out(params.size());
  std::map<std::pair<int, DType>, std::pair<detail::Context*, std::vector<AdamOperands>>> groups;
  for (size_t i = 0; i < params.size(); ++i) {
    DType dtype = params[i].dtype();
    T p = dense(std::move(params[i]), dtype), g = dense(std::move(grads[i]), dtype);
    T m = dense(std::move(moments_1[i]), dtype), v = dense(std::move(moments_2[i]), dtype);
    const Shape& shape = p.shape();
    out[i] = {output_for(p, shape, dtype), output_for(m, shape, dtype), output_for(v, shape, dtype)};
    if (p.numel() > 0) {
      AdamOperands step{{}, static_cast<int64_t>(p.numel())};
      const T* operands[7] = {&p, &g, &m, &v, &out[i].param, &out[i].moment_1, &out[i].moment_2};
      for (int k = 0; k < 7; ++k) step.addr[k] = address_of(*operands[k]);
      auto& group = groups[{p.device().index, dtype}];
      group.first = &context_of(p);
      group.second.push_back(step);
    }
    // the operands live until the dispatches are recorded: no later allocation may take their buffers first
    params[i] = std::move(p), grads[i] = std::move(g), moments_1[i] = std::move(m), moments_2[i] = std::move(v);
  }
  AdamHeader header = adam_header(s);
  for (auto& [key, group] : groups) run_adam(header, group.second, key.second, *group.first);
  return out;
}

AdamUpdate<T> adam_update(T param, T grad, T moment_1, T moment_2, double lr, double beta_1, double beta_2,
                          double epsilon, double weight_decay, bool decoupled, double step) {
  auto one = [](T x) { return std::vector<T>{std::move(x)}; };
  return adam_update_many(one(std::move(param)), one(std::move(grad)), one(std::move(moment_1)),
                          one(std::move(moment_2)), {lr, beta_1, beta_2, epsilon, weight_decay, decoupled, step})[0];
}

}  // namespace scorch::backends::vulkan::kernels
