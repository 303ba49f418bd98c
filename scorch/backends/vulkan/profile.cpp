// GPU time per shader from timestamp queries (profile.h).
#include "scorch/backends/vulkan/profile.h"

#include <algorithm>
#include <cstdlib>

namespace scorch::backends::vulkan::detail {

void Profiler::init(VkDevice device, uint32_t timestamp_bits, float period_ns, uint32_t max_dispatches) {
  const char* env = std::getenv("SCORCH_VULKAN_PROFILE");
  supported_ = timestamp_bits > 0;
  tick_mask_ = timestamp_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << timestamp_bits) - 1;
  enabled_ = env && std::string(env) == "1" && supported_;
  device_ = device;
  period_ns_ = period_ns;
  capacity_ = 2 * max_dispatches;
}

void Profiler::begin(BatchTimes& times, VkCommandBuffer cmd) {
  times.active = false;
  times.shaders.clear();
  if (!enabled_) return;
  if (!times.pool) {
    VkQueryPoolCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    ci.queryCount = capacity_;
    if (vkCreateQueryPool(device_, &ci, nullptr, &times.pool) != VK_SUCCESS) {
      enabled_ = supported_ = false;
      return;
    }
  }
  vkCmdResetQueryPool(cmd, times.pool, 0, capacity_);
  times.active = true;
}

bool Profiler::before(BatchTimes& times, VkCommandBuffer cmd, const std::string& shader) {
  if (!times.active || 2 * (times.shaders.size() + 1) > capacity_) return false;
  // At the compute stage: once the commands before (behind the barrier each dispatch has) finished, not when the
  // dispatch reaches the top of the pipe, which can precede the previous dispatch's end.
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, times.pool,
                      2 * static_cast<uint32_t>(times.shaders.size()));
  times.shaders.push_back(shader);
  return true;
}

void Profiler::after(BatchTimes& times, VkCommandBuffer cmd, bool bracketed) {
  if (!bracketed) return;
  uint32_t last = 2 * static_cast<uint32_t>(times.shaders.size()) - 1;
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, times.pool, last);
}

void Profiler::collect(BatchTimes& times) {
  if (!times.active || times.shaders.empty()) return;
  std::vector<uint64_t> ticks(2 * times.shaders.size());
  VkResult r =
      vkGetQueryPoolResults(device_, times.pool, 0, static_cast<uint32_t>(ticks.size()),
                            ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
  if (r == VK_SUCCESS) {
    for (size_t i = 0; i < times.shaders.size(); ++i) {
      ShaderTime& t = totals_.try_emplace(times.shaders[i], ShaderTime{times.shaders[i], 0, 0}).first->second;
      ++t.dispatches;
      t.milliseconds += static_cast<double>((ticks[2 * i + 1] - ticks[2 * i]) & tick_mask_) * period_ns_ * 1e-6;
    }
    ++spans_.dispatches;
    spans_.milliseconds += static_cast<double>((ticks.back() - ticks.front()) & tick_mask_) * period_ns_ * 1e-6;
  }
  times.shaders.clear();
  times.active = false;
}

void Profiler::destroy(BatchTimes& times) {
  if (times.pool) vkDestroyQueryPool(device_, times.pool, nullptr);
  times.pool = VK_NULL_HANDLE;
}

std::vector<ShaderTime> Profiler::totals() const {
  std::vector<ShaderTime> out;
  for (const auto& [name, t] : totals_) out.push_back(t);
  std::sort(out.begin(), out.end(),
            [](const ShaderTime& a, const ShaderTime& b) { return a.milliseconds > b.milliseconds; });
  if (spans_.dispatches) out.push_back(spans_);
  return out;
}

void Profiler::reset() {
  totals_.clear();
  spans_.dispatches = 0;
  spans_.milliseconds = 0;
}

}  // namespace scorch::backends::vulkan::detail
