// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_buffer.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "bk/error.h"
#include "bk/units.h"
#include "devices/vulkan/vk_context.h"
#include "devices/vulkan/vk_device.h"
#include "devices/vulkan/vk_transfer.h"

namespace bk {

std::string VulkanBufferType::name() const {
  return kind_ == VulkanMemoryKind::host ? device_.name() + "_Host" : device_.name();
}

Device& VulkanBufferType::device() const { return device_; }

std::unique_ptr<Buffer> VulkanBufferType::alloc(size_t size) {
  if (size > max_size()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: a {} buffer cannot exceed {} ({} bytes requested); use several buffers",
                            name(), is_host() ? "host" : "device", format_bytes(max_size()), size));
  }
  return std::make_unique<VulkanBuffer>(*this, device_.context(), size);
}

size_t VulkanBufferType::alignment() const {
  // Storage-buffer binding offsets must be aligned; 64 keeps vector loads and CPU code happy too.
  return std::max<size_t>(64, device_.info().props.limits.minStorageBufferOffsetAlignment);
}

size_t VulkanBufferType::max_size() const {
  if (kind_ == VulkanMemoryKind::host)
    return VulkanContext::chunk_limit_for(device_.info(), device_.options());
  return BufferType::max_size();
}

VulkanBuffer::VulkanBuffer(VulkanBufferType& type, VulkanContext& ctx, size_t size)
    : Buffer(type, size), ctx_(ctx) {
  const bool host = type.kind() == VulkanMemoryKind::host;
  if (size != 0) {
    alloc_ = std::make_unique<VulkanAllocation>(ctx, size, type.kind(), host || ctx.device_memory_mappable());
  }
  if (host && alloc_) {
    base_ = alloc_->chunk(0).mapped();
  } else {
    reserved_ = std::make_unique<VulkanAddressRange>(size);
    base_ = reserved_->base();
  }
}

VulkanBuffer::~VulkanBuffer() = default;

void VulkanBuffer::do_write(size_t offset, const void* src, size_t size) {
  if (!alloc_->mapped()) {
    ctx_.transfer().write(*alloc_, offset, src, size);
    return;
  }
  const auto* from = static_cast<const uint8_t*>(src);
  alloc_->for_each_piece(offset, size, [from](const VulkanChunk& chunk, size_t at, size_t done, size_t len) {
    std::memcpy(chunk.mapped() + at, from + done, len);
  });
}

void VulkanBuffer::do_read(size_t offset, void* dst, size_t size) const {
  if (!alloc_->mapped()) {
    ctx_.transfer().read(*alloc_, offset, dst, size);
    return;
  }
  auto* to = static_cast<uint8_t*>(dst);
  alloc_->for_each_piece(offset, size, [to](const VulkanChunk& chunk, size_t at, size_t done, size_t len) {
    std::memcpy(to + done, chunk.mapped() + at, len);
  });
}

void VulkanBuffer::do_fill(size_t offset, uint8_t value, size_t size) {
  if (!alloc_->mapped()) {
    ctx_.transfer().fill(*alloc_, offset, value, size);
    return;
  }
  alloc_->for_each_piece(offset, size, [value](const VulkanChunk& chunk, size_t at, size_t, size_t len) {
    std::memset(chunk.mapped() + at, value, len);
  });
}

bool VulkanBuffer::do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) {
  if (const VulkanBuffer* from = vulkan_buffer_of(&src, ctx_)) {
    const bool overlap = from == this && src_offset < dst_offset + size && dst_offset < src_offset + size;
    if (overlap) {
      // vkCmdCopyBuffer forbids overlapping regions; go through the host instead.
      std::vector<uint8_t> bytes(size);
      do_read(src_offset, bytes.data(), size);
      do_write(dst_offset, bytes.data(), size);
    } else {
      ctx_.transfer().copy(*from->alloc_, src_offset, *alloc_, dst_offset, size);
    }
    return true;
  }
  if (src.type().is_host()) {
    do_write(dst_offset, static_cast<const uint8_t*>(src.base()) + src_offset, size);
    return true;
  }
  return false;
}

VulkanBuffer* vulkan_buffer_of(const Buffer* buffer, const VulkanContext& ctx) noexcept {
  auto* vb = dynamic_cast<VulkanBuffer*>(const_cast<Buffer*>(buffer));
  return vb != nullptr && &vb->context() == &ctx ? vb : nullptr;
}

}  // namespace bk
