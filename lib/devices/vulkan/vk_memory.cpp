// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_memory.h"

#include <fmt/format.h>

#include "bk/error.h"
#include "bk/units.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_error.h"
#include "devices/vulkan/vk_properties.h"

namespace bk {
namespace {

struct MemoryPreference {
  VkMemoryPropertyFlags want;
  VkMemoryPropertyFlags avoid;
};

constexpr VkMemoryPropertyFlags kDeviceLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kHostVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags kHostCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kHostCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
constexpr VkMemoryPropertyFlags kMappable = kHostVisible | kHostCoherent;
// Memory bk never wants: protected content, lazily allocated tiles, AMD's uncached debug types.
constexpr VkMemoryPropertyFlags kNever =
    VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT |
    VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD | VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD;

std::vector<MemoryPreference> preferences(VkPhysicalDeviceType device_type, VulkanMemoryKind kind) {
  if (kind == VulkanMemoryKind::host) {
    return {{kMappable | kHostCached, kDeviceLocal},
            {kMappable, kDeviceLocal},
            {kMappable | kHostCached, 0},
            {kMappable, 0}};
  }
  const bool uma =
      device_type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU || device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  // A discrete GPU's host-visible device memory is the small BAR window: keep it for others.
  if (uma) return {{kDeviceLocal | kMappable, 0}, {kDeviceLocal, 0}, {0, 0}};
  return {{kDeviceLocal, kHostVisible}, {kDeviceLocal, 0}, {0, 0}};
}

}  // namespace

std::optional<uint32_t> vulkan_pick_memory_type(const VkPhysicalDeviceMemoryProperties& memory,
                                                VkPhysicalDeviceType device_type, uint32_t type_bits,
                                                VulkanMemoryKind kind) {
  for (const MemoryPreference& pref : preferences(device_type, kind)) {
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
      if ((type_bits & (1u << i)) == 0 || (flags & kNever) != 0) continue;
      if ((flags & pref.want) == pref.want && (flags & pref.avoid) == 0) return i;
    }
  }
  return std::nullopt;
}

std::vector<VulkanHeapBudget> vulkan_heap_budgets(const VulkanInstanceFns& fn, const VulkanDeviceInfo& info,
                                                  const VulkanHeapUsage& usage) {
  std::vector<VulkanHeapBudget> budgets = vulkan_query_budgets(fn, info);
  if (!budgets.empty()) return budgets;
  for (uint32_t i = 0; i < info.memory.memoryHeapCount; ++i) {
    budgets.push_back({info.memory.memoryHeaps[i].size, usage.get(i), false});
  }
  return budgets;
}

VkBufferUsageFlags vulkan_buffer_usage(const VulkanDeviceInfo& info) noexcept {
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (info.texel_rgba32f || info.texel_rgba16f || info.texel_rgba16ui || info.texel_r32ui)
    usage |= VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
  return usage;
}

VulkanChunk::VulkanChunk(VulkanContext& ctx, VkDeviceSize size, uint32_t memory_type, bool map,
                         const std::string& purpose)
    : ctx_(ctx), size_(size), heap_(ctx.info().memory.memoryTypes[memory_type].heapIndex) {
  const VulkanDeviceFns& fn = ctx.fn();
  try {
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = vulkan_buffer_usage(ctx.info());
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    vk_check(fn.vkCreateBuffer(ctx.device(), &info, nullptr, &buffer_), "vkCreateBuffer", ctx.name(),
             fmt::format("a {}-byte buffer, {}", size, purpose));

    VkMemoryRequirements req{};
    fn.vkGetBufferMemoryRequirements(ctx.device(), buffer_, &req);
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = memory_type;
    const VkResult result = fn.vkAllocateMemory(ctx.device(), &alloc, nullptr, &memory_);
    if (result != VK_SUCCESS) {
      const VulkanHeapBudget heap = ctx.heap_budgets()[heap_];
      vk_check(result, "vkAllocateMemory", ctx.name(),
               fmt::format("allocating {} ({} bytes), {}, from heap {} with {} free of {}",
                           format_bytes(req.size), req.size, purpose, heap_,
                           format_bytes(heap.budget > heap.usage ? heap.budget - heap.usage : 0),
                           format_bytes(ctx.info().memory.memoryHeaps[heap_].size)));
    }
    allocated_ = req.size;
    ctx.heap_usage().add(heap_, allocated_);
    vk_check(fn.vkBindBufferMemory(ctx.device(), buffer_, memory_, 0), "vkBindBufferMemory", ctx.name());
    if (map) {
      void* p = nullptr;
      vk_check(fn.vkMapMemory(ctx.device(), memory_, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory", ctx.name(),
               fmt::format("mapping {} bytes, {}", size, purpose));
      mapped_ = static_cast<uint8_t*>(p);
    }
  } catch (...) {
    release();
    throw;
  }
}

VulkanChunk::~VulkanChunk() { release(); }

void VulkanChunk::release() noexcept {
  const VulkanDeviceFns& fn = ctx_.fn();
  if (mapped_ != nullptr) fn.vkUnmapMemory(ctx_.device(), memory_);
  if (buffer_ != VK_NULL_HANDLE) fn.vkDestroyBuffer(ctx_.device(), buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) fn.vkFreeMemory(ctx_.device(), memory_, nullptr);
  if (allocated_ != 0) ctx_.heap_usage().sub(heap_, allocated_);
  mapped_ = nullptr;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  allocated_ = 0;
}

VulkanAllocation::VulkanAllocation(VulkanContext& ctx, size_t size, VulkanMemoryKind kind, bool map)
    : size_(size), chunk_size_(ctx.chunk_limit()) {
  const uint32_t type = ctx.memory_type(kind);
  const VkMemoryType& mt = ctx.info().memory.memoryTypes[type];
  const VkDeviceSize heap_size = ctx.info().memory.memoryHeaps[mt.heapIndex].size;
  const VkDeviceSize held = ctx.heap_usage().get(mt.heapIndex);
  const VkDeviceSize room = heap_size > held ? heap_size - held : 0;
  if (size > room) {
    throw Error(
        ErrorCode::out_of_memory,
        fmt::format("{}: cannot allocate {} ({} bytes) of {} memory: heap {} has {} free of {}; use a "
                    "smaller size or free buffers",
                    ctx.name(), format_bytes(size), size,
                    kind == VulkanMemoryKind::host ? "host-visible" : "device", mt.heapIndex,
                    format_bytes(room), format_bytes(heap_size)));
  }
  mapped_ = map && (mt.propertyFlags & kMappable) == kMappable;
  const size_t count = (size + chunk_size_ - 1) / chunk_size_;
  chunks_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t bytes = std::min(chunk_size_, size - i * chunk_size_);
    const std::string purpose =
        count == 1 ? fmt::format("a {} buffer", format_bytes(size))
                   : fmt::format("chunk {} of {} of a {} buffer", i + 1, count, format_bytes(size));
    chunks_.push_back(std::make_unique<VulkanChunk>(ctx, bytes, type, mapped_, purpose));
  }
}

std::optional<VulkanRange> VulkanAllocation::range(size_t offset, size_t size) const noexcept {
  const size_t index = offset / chunk_size_;
  if (index >= chunks_.size()) return std::nullopt;
  const size_t in_chunk = offset - index * chunk_size_;
  const size_t have = chunks_[index]->size();
  if (in_chunk > have || size > have - in_chunk) return std::nullopt;
  return VulkanRange{chunks_[index].get(), in_chunk};
}

}  // namespace bk
