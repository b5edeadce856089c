// SPDX-License-Identifier: MIT
#pragma once
// Moving bytes between host memory and VulkanAllocations, and between allocations.
//
// The vulkan_record_* functions only record commands into a stream's command buffer (split at
// chunk boundaries); callers order them with barriers and submit. VulkanTransfer is the
// device's synchronous engine for Buffer::write/read/fill/copy on memory the host cannot map:
// it pushes data through a double-buffered staging allocation so the host copies one half
// while the device copies the other, and returns when the device is done.
//
// Threading: VulkanTransfer's methods may be called from any thread (one at a time runs).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "devices/vulkan/vk_memory.h"
#include "devices/vulkan/vk_stream.h"

namespace bk {

class VulkanContext;

// vkCmdCopyBuffer of [src_offset, +size) to [dst_offset, +size); the ranges must not overlap
// when src and dst are the same allocation.
void vulkan_record_copy(VulkanStream& stream, const VulkanAllocation& src, size_t src_offset,
                        const VulkanAllocation& dst, size_t dst_offset, size_t size);
// vkCmdFillBuffer; offset and size must be multiples of 4.
void vulkan_record_fill(VulkanStream& stream, const VulkanAllocation& dst, size_t offset, uint32_t pattern,
                        size_t size);

class VulkanTransfer {
 public:
  explicit VulkanTransfer(VulkanContext& ctx);
  ~VulkanTransfer();

  void write(const VulkanAllocation& dst, size_t offset, const void* src, size_t size);
  void read(const VulkanAllocation& src, size_t offset, void* dst, size_t size);
  void fill(const VulkanAllocation& dst, size_t offset, uint8_t value, size_t size);
  void copy(const VulkanAllocation& src, size_t src_offset, const VulkanAllocation& dst, size_t dst_offset,
            size_t size);

  // Bytes of each staging half.
  static constexpr size_t kStagingHalf = size_t{8} << 20;

 private:
  const VulkanAllocation& staging();

  VulkanContext& ctx_;
  std::mutex mutex_;
  VulkanStream stream_;
  std::unique_ptr<VulkanAllocation> staging_;
};

}  // namespace bk
