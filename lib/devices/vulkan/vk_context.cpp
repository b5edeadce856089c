// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_context.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "devices/vulkan/vk_error.h"
#include "devices/vulkan/vk_memory.h"
#include "devices/vulkan/vk_pipelines.h"
#include "devices/vulkan/vk_transfer.h"

namespace bk {
namespace {

constexpr size_t kChunkGranularity = 4096;

uint32_t probe_buffer_type_bits(const VulkanContext& ctx) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = kChunkGranularity;
  info.usage = vulkan_buffer_usage(ctx.info());
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  vk_check(ctx.fn().vkCreateBuffer(ctx.device(), &info, nullptr, &buffer), "vkCreateBuffer", ctx.name(),
           "probing memory types");
  // Every buffer created with the same usage and flags accepts the same memory types.
  VkMemoryRequirements req{};
  ctx.fn().vkGetBufferMemoryRequirements(ctx.device(), buffer, &req);
  ctx.fn().vkDestroyBuffer(ctx.device(), buffer, nullptr);
  return req.memoryTypeBits;
}

}  // namespace

VulkanContext::VulkanContext(std::string name, const VulkanInstanceFns& instance_fn,
                             const VulkanDeviceInfo& info, VulkanHeapUsage& heap_usage,
                             const VulkanOptions& options)
    : name_(std::move(name)),
      instance_fn_(instance_fn),
      info_(info),
      heap_usage_(heap_usage),
      options_(options) {
  create_device();
  try {
    load_device_functions();
    fn_.vkGetDeviceQueue(device_, info_.compute_queue_family, 0, &queue_);
    choose_memory_types();
    chunk_limit_ = chunk_limit_for(info_, options_);
    transfer_ = std::make_unique<VulkanTransfer>(*this);
  } catch (...) {
    if (fn_.vkDestroyDevice != nullptr) fn_.vkDestroyDevice(device_, nullptr);
    throw;
  }
}

VulkanContext::~VulkanContext() {
  transfer_.reset();
  fn_.vkDeviceWaitIdle(device_);
  pipelines_.reset();
  fn_.vkDestroyDevice(device_, nullptr);
}

void VulkanContext::create_device() {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = info_.compute_queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;

  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{};
  timeline.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES;
  timeline.timelineSemaphore = VK_TRUE;
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  storage16.storageBuffer16BitAccess = info_.storage_buffer_16bit ? VK_TRUE : VK_FALSE;
  timeline.pNext = &storage16;
  VkPhysicalDeviceShaderFloat16Int8Features f16{};
  f16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  f16.shaderFloat16 = info_.shader_float16 ? VK_TRUE : VK_FALSE;
  if (info_.shader_float16) storage16.pNext = &f16;  // the structure is only valid where supported

  std::vector<const char*> extensions;
  for (const std::string& ext : info_.enabled_extensions) extensions.push_back(ext.c_str());

  VkDeviceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  create.pNext = &timeline;
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  vk_check(instance_fn_.vkCreateDevice(info_.physical, &create, nullptr, &device_), "vkCreateDevice", name_,
           fmt::format("creating the logical device for '{}'", info_.props.deviceName));
}

void VulkanContext::load_device_functions() {
  auto load = [this](const char* name) {
    std::string actual = name;
    // Vulkan 1.1 drivers offer the timeline calls under their extension names only.
    if (info_.needs_timeline_khr &&
        (actual == "vkWaitSemaphores" || actual == "vkGetSemaphoreCounterValue")) {
      actual += "KHR";
    }
    PFN_vkVoidFunction f = instance_fn_.vkGetDeviceProcAddr(device_, actual.c_str());
    if (f == nullptr) {
      throw Error(ErrorCode::device_error, fmt::format("{}: the driver for '{}' has no {}; update the driver",
                                                       name_, info_.props.deviceName, actual));
    }
    return f;
  };
  // vkGetDeviceProcAddr returns a generic function pointer; each entry has its real type.
#define BK_VK_LOAD(name) fn_.name = reinterpret_cast<PFN_##name>(load(#name));
  BK_VK_DEVICE_FUNCS(BK_VK_LOAD)
#undef BK_VK_LOAD
}

void VulkanContext::choose_memory_types() {
  const uint32_t bits = probe_buffer_type_bits(*this);
  const auto device =
      vulkan_pick_memory_type(info_.memory, info_.props.deviceType, bits, VulkanMemoryKind::device);
  const auto host =
      vulkan_pick_memory_type(info_.memory, info_.props.deviceType, bits, VulkanMemoryKind::host);
  if (!device || !host) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: '{}' offers no {} memory type for storage buffers", name_,
                            info_.props.deviceName, device ? "host-visible, host-coherent" : "usable"));
  }
  device_memory_type_ = *device;
  host_memory_type_ = *host;
}

size_t VulkanContext::chunk_limit_for(const VulkanDeviceInfo& info, const VulkanOptions& options) noexcept {
  size_t limit = info.max_allocation_size;
  if (info.max_buffer_size != 0) limit = std::min<size_t>(limit, info.max_buffer_size);
  if (options.max_chunk != 0) limit = std::min(limit, options.max_chunk);
  return std::max(kChunkGranularity, limit / kChunkGranularity * kChunkGranularity);
}

void VulkanContext::submit(const VkSubmitInfo& info) {
  std::lock_guard lock(queue_mutex_);
  vk_check(fn_.vkQueueSubmit(queue_, 1, &info, VK_NULL_HANDLE), "vkQueueSubmit", name_);
}

VulkanPipelines& VulkanContext::pipelines() {
  std::lock_guard lock(pipelines_mutex_);
  if (!pipelines_) pipelines_ = std::make_unique<VulkanPipelines>(*this);
  return *pipelines_;
}

size_t VulkanContext::pipelines_created() const {
  std::lock_guard lock(pipelines_mutex_);
  return pipelines_ ? pipelines_->created() : 0;
}

uint32_t VulkanContext::memory_type(VulkanMemoryKind kind) const noexcept {
  return kind == VulkanMemoryKind::host ? host_memory_type_ : device_memory_type_;
}

bool VulkanContext::device_memory_mappable() const noexcept {
  constexpr VkMemoryPropertyFlags kMappable =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags flags = info_.memory.memoryTypes[device_memory_type_].propertyFlags;
  return !options_.force_staging && (flags & kMappable) == kMappable;
}

std::vector<VulkanHeapBudget> VulkanContext::heap_budgets() const {
  return vulkan_heap_budgets(instance_fn_, info_, heap_usage_);
}

}  // namespace bk
