// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_device.h"

#include <fmt/format.h>

#include "bk/tensor.h"
#include "devices/vulkan/vk_backend.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_event.h"
#include "devices/vulkan/vk_ops.h"

namespace bk {

VulkanDevice::VulkanDevice(BackendReg& reg, const VulkanInstanceFns& fn, VulkanDeviceInfo info, size_t index,
                           const VulkanOptions& options)
    : reg_(reg),
      fn_(fn),
      info_(std::move(info)),
      name_(fmt::format("Vulkan{}", index)),
      options_(options),
      device_buffers_(*this, VulkanMemoryKind::device),
      host_buffers_(*this, VulkanMemoryKind::host),
      has_host_buffers_(
          vulkan_pick_memory_type(info_.memory, info_.props.deviceType, ~0u, VulkanMemoryKind::host)
              .has_value()) {}

VulkanDevice::~VulkanDevice() = default;

DeviceType VulkanDevice::type() const {
  switch (info_.props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceType::gpu;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceType::igpu;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return DeviceType::cpu;
    default:
      return DeviceType::accel;
  }
}

MemoryInfo VulkanDevice::memory() const {
  const std::vector<VulkanHeapBudget> budgets = vulkan_heap_budgets(fn_, info_, heap_usage_);
  bool any_local = false;
  for (uint32_t i = 0; i < info_.memory.memoryHeapCount; ++i) {
    any_local = any_local || (info_.memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
  }
  MemoryInfo mem;
  for (uint32_t i = 0; i < info_.memory.memoryHeapCount; ++i) {
    const VkMemoryHeap& heap = info_.memory.memoryHeaps[i];
    if (any_local && (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) == 0) continue;
    const VulkanHeapBudget& b = budgets[i];
    const VkDeviceSize free = b.budget > b.usage ? b.budget - b.usage : 0;
    mem.total += heap.size;
    mem.free += std::min(free, heap.size);
  }
  return mem;
}

DeviceCaps VulkanDevice::caps() const {
  DeviceCaps caps;
  caps.async = true;
  caps.host_buffer = has_host_buffers_;
  caps.buffer_from_host_ptr = false;
  caps.events = true;
  caps.event_timing = info_.has_timestamps();
  return caps;
}

std::string VulkanDevice::stable_id() const {
  if (info_.pci) return vulkan_pci_string(*info_.pci);
  if (info_.device_uuid) return vulkan_uuid_string(*info_.device_uuid);
  return {};
}

bool VulkanDevice::supports_op(const Tensor& node) const { return unsupported_reason(node).empty(); }

std::string VulkanDevice::unsupported_reason(const Tensor& node) const {
  return vulkan_unsupported_reason(info_, name_, node);
}

bool VulkanDevice::offload_op(const Tensor& node) const {
  return type() != DeviceType::cpu && is_batched_mul_mat(node);
}

size_t VulkanDevice::pipelines_created() const {
  std::lock_guard lock(context_mutex_);
  return context_ ? context_->pipelines_created() : 0;
}

bool VulkanDevice::supports_buffer_type(const BufferType& type) const {
  return &type == &device_buffers_ || (has_host_buffers_ && &type == &host_buffers_);
}

BufferType* VulkanDevice::host_buffer_type() { return has_host_buffers_ ? &host_buffers_ : nullptr; }

std::unique_ptr<Backend> VulkanDevice::init_backend() { return std::make_unique<VulkanBackend>(*this); }

std::unique_ptr<Event> VulkanDevice::create_event() { return std::make_unique<VulkanEvent>(*this, false); }

std::unique_ptr<Event> VulkanDevice::create_timing_event() {
  if (!info_.has_timestamps()) return Device::create_timing_event();
  return std::make_unique<VulkanEvent>(*this, true);
}

bool VulkanDevice::device_buffers_mapped() const {
  {
    std::lock_guard lock(context_mutex_);
    if (context_) return context_->device_memory_mappable();
  }
  constexpr VkMemoryPropertyFlags kMappable =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const auto type =
      vulkan_pick_memory_type(info_.memory, info_.props.deviceType, ~0u, VulkanMemoryKind::device);
  return !options_.force_staging && type &&
         (info_.memory.memoryTypes[*type].propertyFlags & kMappable) == kMappable;
}

VulkanContext& VulkanDevice::context() {
  std::lock_guard lock(context_mutex_);
  if (!context_) context_ = std::make_unique<VulkanContext>(name_, fn_, info_, heap_usage_, options_);
  return *context_;
}

}  // namespace bk
