#pragma once
// GPU time per shader (internal to backends/vulkan): with SCORCH_VULKAN_PROFILE=1, every dispatch of a command buffer
// is bracketed by timestamps and, once the buffer completes, its time is added to its shader's total.
#include <vulkan/vulkan.h>

#include <map>
#include <string>
#include <vector>

#include "scorch/backends/vulkan/runtime.h"

namespace scorch::backends::vulkan::detail {

/// The timestamps of one command buffer's dispatches.
struct BatchTimes {
  VkQueryPool pool = VK_NULL_HANDLE;
  std::vector<std::string> shaders;  // the shader of each bracketed dispatch, in order
  bool active = false;               // the pool was reset when this command buffer began: its dispatches are timed
};

/// Per-shader totals of one device; a no-op unless enabled. Callers hold the context's lock.
class Profiler {
 public:
  /// Enabled when SCORCH_VULKAN_PROFILE=1 and the queue family writes timestamps.
  void init(VkDevice device, uint32_t timestamp_bits, float period_ns, uint32_t max_dispatches);
  /// Turns timing on or off (stays off where the queue writes no timestamps); a command buffer recorded while off
  /// stays untimed.
  void set_enabled(bool on) { enabled_ = on && supported_; }
  /// At the start of a command buffer: its query pool created or reset.
  void begin(BatchTimes& times, VkCommandBuffer cmd);
  /// Around one dispatch of shader: before says whether it bracketed the dispatch (after then closes it).
  bool before(BatchTimes& times, VkCommandBuffer cmd, const std::string& shader);
  void after(BatchTimes& times, VkCommandBuffer cmd, bool bracketed);
  /// Once the command buffer completed: its times added to the totals.
  void collect(BatchTimes& times);
  void destroy(BatchTimes& times);
  std::vector<ShaderTime> totals() const;
  void reset();

 private:
  bool enabled_ = false, supported_ = false;
  VkDevice device_ = VK_NULL_HANDLE;
  float period_ns_ = 1;
  uint64_t tick_mask_ = ~uint64_t{0};  // the timestamps' valid bits
  uint32_t capacity_ = 0;              // queries per pool
  std::map<std::string, ShaderTime> totals_;
  ShaderTime spans_{"(command buffers)", 0, 0};
};

}  // namespace scorch::backends::vulkan::detail
