#pragma once
// The Vulkan backend's device context (internal to backends/vulkan): the instance, one logical device and compute
// queue per physical device, the caching buffer pool, pipelines by shader and specialization, and the command
// stream: every command is recorded into the current command buffer behind a barrier on everything before it
// (ops run in order, as on one CUDA stream); a command buffer is submitted when it holds kBatch commands or when
// the host reads, and only reads wait.
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scorch/backends/vulkan/profile.h"
#include "scorch/backends/vulkan/runtime.h"
#include "scorch/core/slow_work.h"

namespace scorch::backends::vulkan::detail {

/// A buffer with its memory: device-local (tensors) or host-visible (staging, kernel parameters).
struct Block {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;
  size_t capacity = 0;
  std::byte* mapped = nullptr;
};

/// A compiled shader's SPIR-V words, by name ("map", "map_wide", "matmul_f32", ...).
std::span<const uint32_t> shader_code(const std::string& name);

/// One device's context. All members lock the context's mutex.
class Context {
 public:
  /// The context of device index, created on first use; throws DeviceError without a usable device.
  static Context& get(int index);
  Context(VkInstance instance, VkPhysicalDevice physical, int index);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& info() const { return info_; }
  /// Whether a launch over `elements` values takes the DYNAMIC pipelines (map.comp, reduce.comp): where pipelines
  /// are not specialized (set_specialized_pipelines in runtime.h), for launches of up to 65536 values (larger ones
  /// run long enough on a CPU device to repay compiling their own pipeline).
  bool dynamic_for(size_t elements) const { return !specialized_.load(std::memory_order_relaxed) && elements <= 65536; }
  bool specialized() const { return specialized_.load(std::memory_order_relaxed); }
  void set_specialized(bool on) { specialized_.store(on, std::memory_order_relaxed); }
  /// A device-local block of at least bytes from the pool.
  Block allocate(size_t bytes, size_t& capacity_out);
  /// Returns a block to the pool (reusable by later commands: they run after every earlier one).
  void release(const Block& block);
  /// Records a dispatch of shader (specialized by spec) with push constants and groups.
  void dispatch(const std::string& shader, std::span<const int32_t> spec, const void* push, uint32_t push_bytes,
                uint32_t groups_x, uint32_t groups_y = 1, uint32_t groups_z = 1);
  /// The same with a parameter block: params is copied into the arena of the command buffer the dispatch goes into,
  /// and its device address replaces the push constants' first 8 bytes (both under one lock).
  void dispatch_with_params(const std::string& shader, std::span<const int32_t> spec, const void* params,
                            size_t params_bytes, const void* push, uint32_t push_bytes, uint32_t groups_x,
                            uint32_t groups_y = 1, uint32_t groups_z = 1);
  /// Records a copy of bytes into dst at offset from host memory (through a staging buffer).
  void write(VkBuffer dst, size_t offset, const void* data, size_t bytes);
  /// Records a copy of bytes from src at offset, submits, waits and copies them to out.
  void read(VkBuffer src, size_t offset, void* out, size_t bytes);
  /// Records a buffer-to-buffer copy.
  void copy(VkBuffer src, size_t src_offset, VkBuffer dst, size_t dst_offset, size_t bytes);
  /// Submits the current command buffer and waits for every submitted one.
  void synchronize();
  PoolStats pool_stats();
  void reset_peak();
  void release_cached();
  WorkStats work_stats();
  /// Adds one to a work counter (host fallbacks, cooperative-matrix dispatches).
  void count(uint64_t WorkStats::*counter);
  void set_profiling(bool enabled);
  std::vector<ShaderTime> profile();
  void reset_profile();
  /// The device address of the status words shaders report errors in (index.comp: an index out of range); every
  /// wait that returns to the host (read, synchronize) reads them and throws the ShapeError they describe.
  VkDeviceAddress status_address() const { return status_.address; }

 private:
  struct Batch {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    uint32_t commands = 0;
    std::vector<Block> staging;  // host blocks freed when the batch completes
    std::vector<Block> arena;    // parameter chunks, the last one being filled
    size_t arena_used = 0;
    BatchTimes times;  // its dispatches' timestamps (SCORCH_VULKAN_PROFILE=1)
  };
  static constexpr uint32_t kBatch = 256;
  static constexpr size_t kMaxInFlight = 16;  // batches queued ahead of the device before recording waits
  static constexpr size_t kArenaChunk = 256 * 1024;

  void create_device();
  void create_pools();  // the command pool, the pipeline layout, the memory types and the status words
  Block create_block(size_t bytes, bool host);
  void destroy_block(const Block& block);
  Block take_host_block(size_t bytes);
  Batch& current();
  VkDeviceAddress params_locked(const void* data, size_t bytes);
  void record_dispatch(const std::string& shader, VkPipeline pipeline, const void* push, uint32_t push_bytes,
                       uint32_t gx, uint32_t gy, uint32_t gz);
  void barrier(VkCommandBuffer cmd);
  void submit_locked();
  void wait_locked();
  void reclaim(Batch& batch);
  VkPipeline pipeline(const std::string& shader, std::span<const int32_t> spec);
  uint32_t memory_type(VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) const;
  void check(VkResult result, const char* call) const;
  void check_status();

  std::mutex mutex_;
  VkInstance instance_;
  VkPhysicalDevice physical_;
  int index_;
  DeviceInfo info_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  uint32_t device_type_ = 0, host_type_ = 0;
  float timestamp_period_ = 1;  // nanoseconds per timestamp tick
  std::unordered_map<std::string, VkShaderModule> modules_;
  std::unordered_map<std::string, VkPipeline> pipelines_;
  std::multimap<size_t, Block> free_device_, free_host_;
  Block status_;  // host-visible: {flag, mode, index, dim size}
  std::unique_ptr<Batch> recording_;
  std::deque<std::unique_ptr<Batch>> in_flight_, idle_;
  PoolStats stats_;
  WorkStats work_;
  SlowWorkNotice pipeline_notice_{"vulkan", "compute pipelines compiled"};  // lavapipe takes seconds per pipeline
  Profiler profiler_;
  std::atomic<bool> specialized_{true};
};

}  // namespace scorch::backends::vulkan::detail
