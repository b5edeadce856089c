// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_transfer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "devices/vulkan/vk_context.h"

namespace bk {

void vulkan_record_copy(VulkanStream& stream, const VulkanAllocation& src, size_t src_offset,
                        const VulkanAllocation& dst, size_t dst_offset, size_t size) {
  VkCommandBuffer cb = stream.commands();
  const VulkanDeviceFns& fn = stream.context().fn();
  dst.for_each_piece(dst_offset, size, [&](const VulkanChunk& dchunk, size_t din, size_t done, size_t len) {
    src.for_each_piece(src_offset + done, len,
                       [&](const VulkanChunk& schunk, size_t sin, size_t sdone, size_t n) {
                         VkBufferCopy region{sin, din + sdone, n};
                         fn.vkCmdCopyBuffer(cb, schunk.buffer(), dchunk.buffer(), 1, &region);
                       });
  });
}

void vulkan_record_fill(VulkanStream& stream, const VulkanAllocation& dst, size_t offset, uint32_t pattern,
                        size_t size) {
  VkCommandBuffer cb = stream.commands();
  const VulkanDeviceFns& fn = stream.context().fn();
  dst.for_each_piece(offset, size, [&](const VulkanChunk& chunk, size_t in_chunk, size_t, size_t len) {
    fn.vkCmdFillBuffer(cb, chunk.buffer(), in_chunk, len, pattern);
  });
}

VulkanTransfer::VulkanTransfer(VulkanContext& ctx) : ctx_(ctx), stream_(ctx) {}

VulkanTransfer::~VulkanTransfer() = default;

const VulkanAllocation& VulkanTransfer::staging() {
  if (!staging_)
    staging_ = std::make_unique<VulkanAllocation>(ctx_, 2 * kStagingHalf, VulkanMemoryKind::host, true);
  return *staging_;
}

void VulkanTransfer::write(const VulkanAllocation& dst, size_t offset, const void* src, size_t size) {
  std::lock_guard lock(mutex_);
  const VulkanAllocation& stage = staging();
  uint8_t* host = stage.chunk(0).mapped();
  std::array<uint64_t, 2> busy{};  // timeline value after which each half is free again
  const auto* from = static_cast<const uint8_t*>(src);
  for (size_t done = 0, i = 0; done < size; ++i) {
    const size_t n = std::min(kStagingHalf, size - done);
    const size_t half = (i % 2) * kStagingHalf;
    stream_.wait(busy[i % 2]);
    std::memcpy(host + half, from + done, n);
    vulkan_record_copy(stream_, stage, half, dst, offset + done, n);
    busy[i % 2] = stream_.submit();
    done += n;
  }
  stream_.wait(stream_.last_submitted());
}

void VulkanTransfer::read(const VulkanAllocation& src, size_t offset, void* dst, size_t size) {
  std::lock_guard lock(mutex_);
  const VulkanAllocation& stage = staging();
  const uint8_t* host = stage.chunk(0).mapped();
  const size_t pieces = (size + kStagingHalf - 1) / kStagingHalf;
  std::vector<uint64_t> ready(pieces);
  auto start = [&](size_t i) {
    const size_t n = std::min(kStagingHalf, size - i * kStagingHalf);
    vulkan_record_copy(stream_, src, offset + i * kStagingHalf, stage, (i % 2) * kStagingHalf, n);
    ready[i] = stream_.submit();
  };
  auto* to = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < std::min<size_t>(2, pieces); ++i) start(i);
  for (size_t i = 0; i < pieces; ++i) {
    const size_t n = std::min(kStagingHalf, size - i * kStagingHalf);
    stream_.wait(ready[i]);
    std::memcpy(to + i * kStagingHalf, host + (i % 2) * kStagingHalf, n);
    if (i + 2 < pieces) start(i + 2);
  }
}

void VulkanTransfer::fill(const VulkanAllocation& dst, size_t offset, uint8_t value, size_t size) {
  // vkCmdFillBuffer works on whole 32-bit words; the up to 3 bytes at either end go by write().
  const size_t begin = std::min(offset + size, (offset + 3) / 4 * 4);
  const size_t end = std::max(begin, (offset + size) / 4 * 4);
  const std::array<uint8_t, 4> bytes{value, value, value, value};
  if (begin > offset) write(dst, offset, bytes.data(), begin - offset);
  if (end > begin) {
    std::lock_guard lock(mutex_);
    vulkan_record_fill(stream_, dst, begin, 0x01010101u * value, end - begin);
    stream_.finish();
  }
  if (offset + size > end) write(dst, end, bytes.data(), offset + size - end);
}

void VulkanTransfer::copy(const VulkanAllocation& src, size_t src_offset, const VulkanAllocation& dst,
                          size_t dst_offset, size_t size) {
  std::lock_guard lock(mutex_);
  vulkan_record_copy(stream_, src, src_offset, dst, dst_offset, size);
  stream_.finish();
}

}  // namespace bk
