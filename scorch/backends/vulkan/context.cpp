// The device context: instance and devices, the pool, pipelines and the batched command stream (context.h).
#include "scorch/backends/vulkan/context.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "scorch/core/error.h"

namespace scorch::backends::vulkan::detail {
namespace {

// A Vulkan info or feature struct: zeroed, with its type and chain pointer set.
template <class S> S make(VkStructureType type, void* next = nullptr) {
  S s{};
  s.sType = type;
  s.pNext = next;
  return s;
}

constexpr VkMemoryPropertyFlags kHostFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

std::string result_name(VkResult r) {
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    default: return "VkResult " + std::to_string(static_cast<int>(r));
  }
}

// Pool size classes: at least 512 bytes, quarter steps between powers of two (as the Cuda pool).
size_t size_class(size_t bytes) {
  if (bytes <= 512) return 512;
  size_t top = size_t{1} << (63 - __builtin_clzll(bytes - 1));
  size_t step = std::max<size_t>(top / 4, 512);
  return (bytes + step - 1) / step * step;
}

}  // namespace

// The instance and its physical devices, found once; reason says why there are none.
struct Devices {
  VkInstance instance = VK_NULL_HANDLE;
  std::vector<VkPhysicalDevice> physical;
  std::string reason;
  std::vector<std::unique_ptr<Context>> contexts;
  std::mutex mutex;
};

namespace {

bool has_extension(VkPhysicalDevice physical, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> extensions(n);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

// What a device lacks of the features every shader needs ("" when nothing).
std::string missing_features(VkPhysicalDevice physical) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical, &props);
  if (props.apiVersion < VK_API_VERSION_1_2) return "Vulkan 1.2";
  auto f11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  auto f12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f11);
  auto f = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
  vkGetPhysicalDeviceFeatures2(physical, &f);
  std::string missing;
  auto need = [&](bool have, const char* name) {
    if (!have) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(f12.bufferDeviceAddress, "bufferDeviceAddress");
  need(f12.storageBuffer8BitAccess, "storageBuffer8BitAccess");
  need(f11.storageBuffer16BitAccess, "storageBuffer16BitAccess");
  need(f12.shaderInt8, "shaderInt8");
  need(f12.shaderFloat16, "shaderFloat16");
  need(f.features.shaderInt16, "shaderInt16");
  return missing;
}

// True when shaders can add floats atomically to buffers (VK_EXT_shader_atomic_float's shaderBufferFloat32AtomicAdd).
bool f32_atomic_add(VkPhysicalDevice physical) {
  if (!has_extension(physical, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) return false;
  auto atomics = make<VkPhysicalDeviceShaderAtomicFloatFeaturesEXT>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT);
  auto f = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &atomics);
  vkGetPhysicalDeviceFeatures2(physical, &f);
  return atomics.shaderBufferFloat32AtomicAdd;
}

// True when f16 products can run on the device's cooperative matrices as matmul_coop.comp uses them: 16×16×16
// subgroup-scope f16 · f16 + f32 (VK_NV_cooperative_matrix), the Vulkan memory model, 32-wide subgroups and 44 KiB of
// shared memory. SCORCH_VULKAN_COOPMAT=0 turns the path off.
bool f16_cooperative_matrix(VkInstance instance, VkPhysicalDevice physical, const DeviceInfo& info) {
  const char* env = std::getenv("SCORCH_VULKAN_COOPMAT");
  if ((env && std::string(env) == "0") || !has_extension(physical, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) ||
      info.subgroup_size != 32 || info.max_shared_memory < 45056)
    return false;
  auto coop = make<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  auto f12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &coop);
  auto f = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
  vkGetPhysicalDeviceFeatures2(physical, &f);
  if (!coop.cooperativeMatrix || !f12.vulkanMemoryModel) return false;
  auto list = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (!list) return false;
  uint32_t n = 0;
  list(physical, &n, nullptr);
  std::vector<VkCooperativeMatrixPropertiesNV> shapes(
      n, make<VkCooperativeMatrixPropertiesNV>(VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV));
  list(physical, &n, shapes.data());
  return std::any_of(shapes.begin(), shapes.end(), [](const VkCooperativeMatrixPropertiesNV& c) {
    return c.MSize == 16 && c.NSize == 16 && c.KSize == 16 && c.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
           c.BType == VK_COMPONENT_TYPE_FLOAT16_NV && c.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
           c.DType == VK_COMPONENT_TYPE_FLOAT32_NV && c.scope == VK_SCOPE_SUBGROUP_NV;
  });
}

}  // namespace

void find_devices(Devices& out) {
  {
    auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    app.pApplicationName = "scorch";
    app.apiVersion = VK_API_VERSION_1_2;
    auto ci = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    ci.pApplicationInfo = &app;
    const char* validation = "VK_LAYER_KHRONOS_validation";
    const char* env = std::getenv("SCORCH_VULKAN_VALIDATION");
    if (env && std::string(env) == "1") {
      ci.enabledLayerCount = 1;
      ci.ppEnabledLayerNames = &validation;
    }
    VkResult r = vkCreateInstance(&ci, nullptr, &out.instance);
    if (r != VK_SUCCESS) {
      out.instance = VK_NULL_HANDLE;
      out.reason = "vkCreateInstance failed (" + result_name(r) + "): no Vulkan driver is installed";
      return;
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(out.instance, &n, nullptr);
    std::vector<VkPhysicalDevice> all(n);
    vkEnumeratePhysicalDevices(out.instance, &n, all.data());
    for (VkPhysicalDevice p : all) {
      std::string missing = missing_features(p);
      if (missing.empty()) out.physical.push_back(p);
      else out.reason += "a device lacks " + missing + "; ";
    }
    if (out.physical.empty() && out.reason.empty()) out.reason = "the Vulkan driver lists no device";
    out.contexts.resize(out.physical.size());
  }
}

// Never destroyed: drivers tear themselves down at exit (NVIDIA's before static destructors run), so the contexts
// must not call into them then.
Devices& devices() {
  static Devices* d = new Devices;
  static std::once_flag once;
  std::call_once(once, [] { find_devices(*d); });
  return *d;
}

Context& Context::get(int index) {
  Devices& d = devices();
  std::lock_guard lock(d.mutex);
  if (index < 0 || index >= static_cast<int>(d.physical.size())) {
    std::string why = d.physical.empty() ? d.reason : std::to_string(d.physical.size()) + " device(s) visible";
    throw DeviceError("vulkan", "no device Vulkan(" + std::to_string(index) + "): " + why);
  }
  auto& slot = d.contexts[static_cast<size_t>(index)];
  if (!slot) slot = std::make_unique<Context>(d.instance, d.physical[static_cast<size_t>(index)], index);
  return *slot;
}

Context::Context(VkInstance instance, VkPhysicalDevice physical, int index)
    : instance_(instance), physical_(physical), index_(index) {
  auto subgroup = make<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  auto driver = make<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, &subgroup);
  auto props = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver);
  vkGetPhysicalDeviceProperties2(physical, &props);
  VkPhysicalDeviceFeatures features;
  vkGetPhysicalDeviceFeatures(physical, &features);
  vkGetPhysicalDeviceMemoryProperties(physical, &memory_);
  const auto& p = props.properties;
  info_.name = p.deviceName;
  info_.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: info_.type = "discrete"; break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: info_.type = "integrated"; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: info_.type = "virtual"; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: info_.type = "cpu"; break;
    default: info_.type = "other";
  }
  info_.api_version = p.apiVersion;
  info_.subgroup_size = subgroup.subgroupSize;
  info_.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  info_.max_shared_memory = p.limits.maxComputeSharedMemorySize;
  timestamp_period_ = p.limits.timestampPeriod;
  for (uint32_t h = 0; h < memory_.memoryHeapCount; ++h)
    if (memory_.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info_.device_memory = std::max<uint64_t>(info_.device_memory, memory_.memoryHeaps[h].size);
  info_.float64 = features.shaderFloat64;
  info_.int64 = features.shaderInt64;
  info_.cooperative_matrix =
      has_extension(physical, "VK_NV_cooperative_matrix") || has_extension(physical, "VK_KHR_cooperative_matrix");
  info_.cooperative_matrix_f16 = f16_cooperative_matrix(instance, physical, info_);
  info_.float32_atomic_add = f32_atomic_add(physical);
  const char* specialize = std::getenv("SCORCH_VULKAN_SPECIALIZE");
  specialized_ = specialize ? std::string(specialize) != "0" : info_.type != "cpu";
  create_device();
}

void Context::create_device() {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n, families.data());
  bool found = false;
  for (uint32_t i = 0; i < n && !found; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = i;
      found = true;
    }
  if (!found) throw DeviceError("vulkan", info_.name + " has no compute queue");
  float priority = 1.f;
  auto qi = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  qi.queueFamilyIndex = queue_family_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  auto f11 = make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  f11.storageBuffer16BitAccess = VK_TRUE;
  auto coop = make<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  coop.cooperativeMatrix = VK_TRUE;
  auto atomics = make<VkPhysicalDeviceShaderAtomicFloatFeaturesEXT>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT);
  atomics.shaderBufferFloat32AtomicAdd = VK_TRUE;
  std::vector<const char*> extensions;
  void* chain = nullptr;
  if (info_.cooperative_matrix_f16) {
    coop.pNext = chain, chain = &coop;
    extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  }
  if (info_.float32_atomic_add) {
    atomics.pNext = chain, chain = &atomics;
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  }
  f11.pNext = chain;
  auto f12 = make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f11);
  f12.vulkanMemoryModel = info_.cooperative_matrix_f16;
  f12.bufferDeviceAddress = VK_TRUE;
  f12.storageBuffer8BitAccess = VK_TRUE;
  f12.shaderInt8 = VK_TRUE;
  f12.shaderFloat16 = VK_TRUE;
  auto features = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
  features.features.shaderInt16 = VK_TRUE;
  features.features.shaderInt64 = info_.int64;
  features.features.shaderFloat64 = info_.float64;
  auto ci = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features);
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &qi;
  ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  check(vkCreateDevice(physical_, &ci, nullptr, &device_), "vkCreateDevice");
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  profiler_.init(device_, families[queue_family_].timestampValidBits, timestamp_period_, kBatch);
  create_pools();
}

void Context::create_pools() {
  auto pi = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = queue_family_;
  check(vkCreateCommandPool(device_, &pi, nullptr, &command_pool_), "vkCreateCommandPool");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 128};
  auto li = make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  li.pushConstantRangeCount = 1;
  li.pPushConstantRanges = &range;
  check(vkCreatePipelineLayout(device_, &li, nullptr, &layout_), "vkCreatePipelineLayout");
  device_type_ = memory_type(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  host_type_ = memory_type(kHostFlags | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
  if (host_type_ == UINT32_MAX) host_type_ = memory_type(kHostFlags, 0);
  if (device_type_ == UINT32_MAX || host_type_ == UINT32_MAX)
    throw DeviceError("vulkan", info_.name + " lacks device-local or host-visible memory");
  host_type_ = memory_type(kHostFlags, 0);
  status_ = create_block(64, true);
  host_type_ = memory_type(kHostFlags | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
  if (host_type_ == UINT32_MAX) host_type_ = memory_type(kHostFlags, 0);
  std::memset(status_.mapped, 0, 64);
}

Context::~Context() {
  try {
    synchronize();
  } catch (...) {}
  for (auto* list : {&free_device_, &free_host_})
    for (auto& [size, block] : *list) destroy_block(block);
  for (auto* q : {&in_flight_, &idle_})
    for (auto& b : *q) {
      for (auto& block : b->staging) destroy_block(block);
      for (auto& block : b->arena) destroy_block(block);
      vkDestroyFence(device_, b->fence, nullptr);
      profiler_.destroy(b->times);
    }
  destroy_block(status_);
  for (auto& [key, p] : pipelines_) vkDestroyPipeline(device_, p, nullptr);
  for (auto& [key, m] : modules_) vkDestroyShaderModule(device_, m, nullptr);
  vkDestroyPipelineLayout(device_, layout_, nullptr);
  vkDestroyCommandPool(device_, command_pool_, nullptr);
  vkDestroyDevice(device_, nullptr);
}

void Context::check(VkResult result, const char* call) const {
  if (result == VK_SUCCESS) return;
  throw DeviceError("vulkan", std::string(call) + " failed on " + info_.name + ": " + result_name(result));
}

uint32_t Context::memory_type(VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) const {
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    auto flags = memory_.memoryTypes[i].propertyFlags;
    if ((flags & want) == want && !(flags & avoid)) return i;
  }
  return UINT32_MAX;
}

Block Context::create_block(size_t bytes, bool host) {
  Block b;
  b.capacity = bytes;
  auto bi = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bi.size = bytes;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
             VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  check(vkCreateBuffer(device_, &bi, nullptr, &b.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  uint32_t type = host ? host_type_ : device_type_;
  if (!(req.memoryTypeBits & (1u << type))) {
    vkDestroyBuffer(device_, b.buffer, nullptr);
    throw DeviceError("vulkan", "no memory type fits a storage buffer on " + info_.name);
  }
  auto flags = make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  auto ai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags);
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  VkResult r = vkAllocateMemory(device_, &ai, nullptr, &b.memory);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(device_, b.buffer, nullptr);
    throw DeviceError("vulkan",
                      "allocating " + std::to_string(bytes) + " bytes on " + info_.name + " failed: " + result_name(r));
  }
  vkBindBufferMemory(device_, b.buffer, b.memory, 0);
  auto addr = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
  addr.buffer = b.buffer;
  b.address = vkGetBufferDeviceAddress(device_, &addr);
  if (host) {
    void* p = nullptr;
    check(vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
    b.mapped = static_cast<std::byte*>(p);
  }
  return b;
}

void Context::destroy_block(const Block& block) {
  if (block.mapped) vkUnmapMemory(device_, block.memory);
  vkDestroyBuffer(device_, block.buffer, nullptr);
  vkFreeMemory(device_, block.memory, nullptr);
}

Block Context::allocate(size_t bytes, size_t& capacity_out) {
  std::lock_guard lock(mutex_);
  size_t want = size_class(bytes);
  Block b;
  auto it = free_device_.lower_bound(want);
  if (it != free_device_.end() && it->first <= want + want / 4) {
    b = it->second;
    free_device_.erase(it);
    stats_.cached -= b.capacity;
    ++stats_.cache_hits;
  } else {
    try {
      b = create_block(want, false);
    } catch (const DeviceError&) {
      // Out of memory: free the cache (after the device is idle) and try once more.
      wait_locked();
      for (auto& [size, block] : free_device_) destroy_block(block);
      free_device_.clear();
      stats_.cached = 0;
      b = create_block(want, false);
    }
    ++stats_.device_mallocs;
  }
  ++stats_.allocations;
  stats_.in_use += b.capacity;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.in_use + stats_.cached);
  capacity_out = b.capacity;
  return b;
}

void Context::release(const Block& block) {
  std::lock_guard lock(mutex_);
  stats_.in_use -= block.capacity;
  stats_.cached += block.capacity;
  free_device_.emplace(block.capacity, block);
}

Block Context::take_host_block(size_t bytes) {
  size_t want = size_class(bytes);
  auto it = free_host_.lower_bound(want);
  if (it != free_host_.end() && it->first <= 2 * want) {
    Block b = it->second;
    free_host_.erase(it);
    return b;
  }
  return create_block(want, true);
}

Context::Batch& Context::current() {
  if (recording_) return *recording_;
  while (!in_flight_.empty() && vkGetFenceStatus(device_, in_flight_.front()->fence) == VK_SUCCESS) {
    reclaim(*in_flight_.front());
    idle_.push_back(std::move(in_flight_.front()));
    in_flight_.pop_front();
  }
  while (in_flight_.size() >= kMaxInFlight) {  // the host is far ahead of the device: wait for the oldest batch
    Batch& oldest = *in_flight_.front();
    check(vkWaitForFences(device_, 1, &oldest.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    reclaim(oldest);
    idle_.push_back(std::move(in_flight_.front()));
    in_flight_.pop_front();
  }
  std::unique_ptr<Batch> batch;  // becomes the recording batch only once it has begun
  if (!idle_.empty()) {
    batch = std::move(idle_.front());
    idle_.pop_front();
  } else {
    batch = std::make_unique<Batch>();
    auto ai = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = command_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(device_, &ai, &batch->cmd), "vkAllocateCommandBuffers");
    auto fi = make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    VkResult r = vkCreateFence(device_, &fi, nullptr, &batch->fence);
    if (r != VK_SUCCESS) vkFreeCommandBuffers(device_, command_pool_, 1, &batch->cmd);
    check(r, "vkCreateFence");
  }
  auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VkResult r = vkBeginCommandBuffer(batch->cmd, &bi);
  if (r != VK_SUCCESS) idle_.push_back(std::move(batch));
  check(r, "vkBeginCommandBuffer");
  profiler_.begin(batch->times, batch->cmd);
  recording_ = std::move(batch);
  return *recording_;
}

void Context::barrier(VkCommandBuffer cmd) {
  auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  auto stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cmd, stages | VK_PIPELINE_STAGE_HOST_BIT, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Context::reclaim(Batch& batch) {
  profiler_.collect(batch.times);
  for (auto& block : batch.staging) free_host_.emplace(block.capacity, block);
  for (auto& block : batch.arena) free_host_.emplace(block.capacity, block);
  batch.staging.clear();
  batch.arena.clear();
  batch.arena_used = 0;
  batch.commands = 0;
  vkResetFences(device_, 1, &batch.fence);
  vkResetCommandBuffer(batch.cmd, 0);
}

void Context::submit_locked() {
  if (!recording_) return;
  // The status words the shaders wrote are the host's to read once the fence signals.
  auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(recording_->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                       nullptr, 0, nullptr);
  VkResult r = vkEndCommandBuffer(recording_->cmd);
  if (r == VK_SUCCESS) {
    auto si = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &recording_->cmd;
    r = vkQueueSubmit(queue_, 1, &si, recording_->fence);
  }
  if (r != VK_SUCCESS) {  // the batch's work is lost: its buffers go back and it is reset for reuse
    reclaim(*recording_);
    idle_.push_back(std::move(recording_));
    check(r, "vkQueueSubmit");
  }
  ++work_.submissions;
  in_flight_.push_back(std::move(recording_));
}

void Context::wait_locked() {
  submit_locked();
  while (!in_flight_.empty()) {
    Batch& b = *in_flight_.front();
    check(vkWaitForFences(device_, 1, &b.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    reclaim(b);
    idle_.push_back(std::move(in_flight_.front()));
    in_flight_.pop_front();
  }
}

VkPipeline Context::pipeline(const std::string& shader, std::span<const int32_t> spec) {
  std::string key;  // the shader's name, a NUL, then the specialization constants' bytes
  key.reserve(shader.size() + 1 + spec.size_bytes());
  key.append(shader).push_back('\0');
  key.append(reinterpret_cast<const char*>(spec.data()), spec.size_bytes());
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  bool wide = shader.find("wide") != std::string::npos || shader.find("64") != std::string::npos;
  if (wide && !(info_.float64 && info_.int64))
    throw DeviceError("vulkan", info_.name + " lacks shaderFloat64 or shaderInt64, which f64 and i64 tensors need");
  VkShaderModule& module = modules_[shader];
  if (!module) {
    auto code = shader_code(shader);
    auto mi = make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    mi.codeSize = code.size() * sizeof(uint32_t);
    mi.pCode = code.data();
    check(vkCreateShaderModule(device_, &mi, nullptr, &module), "vkCreateShaderModule");
  }
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (uint32_t i = 0; i < spec.size(); ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo si{static_cast<uint32_t>(spec.size()), entries.data(), spec.size() * 4, spec.data()};
  auto ci = make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  ci.stage = make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = &si;
  ci.layout = layout_;
  VkPipeline p;
  auto started = std::chrono::steady_clock::now();
  check(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &ci, nullptr, &p), "vkCreateComputePipelines");
  pipeline_notice_.add(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  ++work_.pipelines;
  pipelines_.emplace(key, p);
  return p;
}

void Context::record_dispatch(const std::string& shader, VkPipeline pipeline, const void* push, uint32_t push_bytes,
                              uint32_t gx, uint32_t gy, uint32_t gz) {
  Batch& b = current();
  barrier(b.cmd);
  vkCmdBindPipeline(b.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdPushConstants(b.cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  bool timed = profiler_.before(b.times, b.cmd, shader);
  vkCmdDispatch(b.cmd, gx, gy, gz);
  profiler_.after(b.times, b.cmd, timed);
  ++work_.dispatches;
  if (++b.commands >= kBatch) submit_locked();
}

void Context::dispatch(const std::string& shader, std::span<const int32_t> spec, const void* push, uint32_t push_bytes,
                       uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) {
  std::lock_guard lock(mutex_);
  record_dispatch(shader, pipeline(shader, spec), push, push_bytes, groups_x, groups_y, groups_z);
}

void Context::dispatch_with_params(const std::string& shader, std::span<const int32_t> spec, const void* params,
                                   size_t params_bytes, const void* push, uint32_t push_bytes, uint32_t groups_x,
                                   uint32_t groups_y, uint32_t groups_z) {
  std::array<std::byte, 128> words{};
  std::memcpy(words.data(), push, push_bytes);
  std::lock_guard lock(mutex_);
  VkPipeline p = pipeline(shader, spec);
  VkDeviceAddress addr = params_locked(params, params_bytes);
  uint32_t split[2] = {static_cast<uint32_t>(addr), static_cast<uint32_t>(addr >> 32)};
  std::memcpy(words.data(), split, sizeof(split));
  record_dispatch(shader, p, words.data(), push_bytes, groups_x, groups_y, groups_z);
}

VkDeviceAddress Context::params_locked(const void* data, size_t bytes) {
  Batch& b = current();
  size_t at = (b.arena_used + 15) / 16 * 16;
  if (b.arena.empty() || at + bytes > b.arena.back().capacity) {
    b.arena.push_back(take_host_block(std::max(bytes, kArenaChunk)));
    at = 0;
  }
  std::memcpy(b.arena.back().mapped + at, data, bytes);
  b.arena_used = at + bytes;
  return b.arena.back().address + at;
}

void Context::write(VkBuffer dst, size_t offset, const void* data, size_t bytes) {
  if (bytes == 0) return;
  std::lock_guard lock(mutex_);
  Block staging = take_host_block(bytes);
  std::memcpy(staging.mapped, data, bytes);
  Batch& b = current();
  b.staging.push_back(staging);
  barrier(b.cmd);
  VkBufferCopy region{0, offset, bytes};
  vkCmdCopyBuffer(b.cmd, staging.buffer, dst, 1, &region);
  if (++b.commands >= kBatch) submit_locked();
}

void Context::read(VkBuffer src, size_t offset, void* out, size_t bytes) {
  if (bytes == 0) return;
  std::lock_guard lock(mutex_);
  Block staging = take_host_block(bytes);
  Batch& b = current();
  barrier(b.cmd);
  VkBufferCopy region{offset, 0, bytes};
  vkCmdCopyBuffer(b.cmd, src, staging.buffer, 1, &region);
  auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(b.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                       nullptr);
  try {
    wait_locked();
  } catch (...) {
    free_host_.emplace(staging.capacity, staging);
    throw;
  }
  std::memcpy(out, staging.mapped, bytes);
  free_host_.emplace(staging.capacity, staging);
  check_status();
}

void Context::check_status() {
  auto* words = reinterpret_cast<volatile uint32_t*>(status_.mapped);
  if (words[0] == 0) return;
  static const char* const kOps[] = {"gather", "select", "scatter_add", "select_add", "max_pool_backward"};
  uint32_t mode = words[1];
  auto index = static_cast<int32_t>(words[2]);
  uint32_t size = words[3];
  words[0] = 0;
  throw ShapeError(mode < 5 ? kOps[mode] : "index", "index " + std::to_string(index) +
                                                        " is out of range for a dim of size " + std::to_string(size) +
                                                        " (found on the device; reported at the next read)");
}

void Context::copy(VkBuffer src, size_t src_offset, VkBuffer dst, size_t dst_offset, size_t bytes) {
  if (bytes == 0) return;
  std::lock_guard lock(mutex_);
  Batch& b = current();
  barrier(b.cmd);
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(b.cmd, src, dst, 1, &region);
  if (++b.commands >= kBatch) submit_locked();
}

void Context::synchronize() {
  std::lock_guard lock(mutex_);
  wait_locked();
  check_status();
}

PoolStats Context::pool_stats() {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Context::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_in_use = stats_.in_use;
  stats_.peak_reserved = stats_.in_use + stats_.cached;
}

void Context::release_cached() {
  std::lock_guard lock(mutex_);
  wait_locked();
  for (auto* list : {&free_device_, &free_host_})
    for (auto& [size, block] : *list) destroy_block(block);
  free_device_.clear();
  free_host_.clear();
  stats_.cached = 0;
}

WorkStats Context::work_stats() {
  std::lock_guard lock(mutex_);
  return work_;
}

void Context::count(uint64_t WorkStats::*counter) {
  std::lock_guard lock(mutex_);
  ++(work_.*counter);
}

void Context::set_profiling(bool enabled) {
  std::lock_guard lock(mutex_);
  profiler_.set_enabled(enabled);
}

std::vector<ShaderTime> Context::profile() {
  std::lock_guard lock(mutex_);
  wait_locked();
  return profiler_.totals();
}

void Context::reset_profile() {
  std::lock_guard lock(mutex_);
  wait_locked();
  profiler_.reset();
}

}  // namespace scorch::backends::vulkan::detail

namespace scorch::backends::vulkan {

int device_count() { return static_cast<int>(detail::devices().physical.size()); }
bool is_available() { return device_count() > 0; }
std::string unavailable_reason() { return is_available() ? "" : detail::devices().reason; }
DeviceInfo device_info(int device) { return detail::Context::get(device).info(); }
void synchronize(int device) { detail::Context::get(device).synchronize(); }
PoolStats pool_stats(int device) { return detail::Context::get(device).pool_stats(); }
void reset_peak(int device) { detail::Context::get(device).reset_peak(); }
void release_cached(int device) { detail::Context::get(device).release_cached(); }
WorkStats work_stats(int device) { return detail::Context::get(device).work_stats(); }
void set_specialized_pipelines(bool on, int device) { detail::Context::get(device).set_specialized(on); }
bool specialized_pipelines(int device) { return detail::Context::get(device).specialized(); }
void set_profiling(bool enabled, int device) { detail::Context::get(device).set_profiling(enabled); }
std::vector<ShaderTime> profile(int device) { return detail::Context::get(device).profile(); }
void reset_profile(int device) { detail::Context::get(device).reset_profile(); }
std::string profile_report(int device) {
  std::string out;
  for (const ShaderTime& t : profile(device)) {
    char line[160];
    std::snprintf(line, sizeof(line), "%-24s %10.3f %8llu\n", t.shader.c_str(), t.milliseconds,
                  static_cast<unsigned long long>(t.dispatches));
    out += line;
  }
  reset_profile(device);
  return out;
}

}  // namespace scorch::backends::vulkan
