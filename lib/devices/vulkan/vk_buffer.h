// SPDX-License-Identifier: MIT
#pragma once
// The Vulkan buffer types and their buffers.
//
// "Vulkan0" (device kind): the device's own memory, chunked when larger than one allocation
// (see vk_memory.h). Tensor data pointers are opaque addresses in a reserved range; reads and
// writes go through a host mapping on UMA devices and through staging otherwise.
//
// "Vulkan0_Host" (host kind): host-visible, host-coherent memory mapped into the process,
// preferably cached system memory. is_host(): tensor data are real pointers the CPU may use,
// and the device reads the same memory for transfers. One mapping must be contiguous, so a host
// buffer is one chunk and max_size() is the device's allocation limit.
//
// Threading: as bk::Buffer (one thread at a time per buffer).

#include <memory>

#include "bk/buffer.h"
#include "devices/vulkan/vk_address.h"
#include "devices/vulkan/vk_memory.h"

namespace bk {

class VulkanContext;
class VulkanDevice;

class VulkanBufferType : public BufferType {
 public:
  VulkanBufferType(VulkanDevice& device, VulkanMemoryKind kind) : device_(device), kind_(kind) {}

  std::string name() const override;
  Device& device() const override;
  // Creates the device's context on first use. Throws Error(out_of_memory) naming the device,
  // the size and the heap's free memory; Error(invalid_argument) above max_size().
  std::unique_ptr<Buffer> alloc(size_t size) override;
  size_t alignment() const override;
  size_t max_size() const override;
  bool is_host() const override { return kind_ == VulkanMemoryKind::host; }

  VulkanMemoryKind kind() const noexcept { return kind_; }

 private:
  VulkanDevice& device_;
  VulkanMemoryKind kind_;
};

class VulkanBuffer : public Buffer {
 public:
  VulkanBuffer(VulkanBufferType& type, VulkanContext& ctx, size_t size);
  ~VulkanBuffer() override;

  void* base() const override { return base_; }
  VulkanContext& context() const noexcept { return ctx_; }
  // The device memory behind the buffer; nullptr for an empty buffer.
  const VulkanAllocation* allocation() const noexcept { return alloc_.get(); }

 protected:
  void do_write(size_t offset, const void* src, size_t size) override;
  void do_read(size_t offset, void* dst, size_t size) const override;
  void do_fill(size_t offset, uint8_t value, size_t size) override;
  // Same-device Vulkan buffers are copied on the device; host buffers (any device's) are read
  // directly. Anything else: false, the caller stages through the host.
  bool do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) override;

 private:
  VulkanContext& ctx_;
  std::unique_ptr<VulkanAllocation> alloc_;
  std::unique_ptr<VulkanAddressRange> reserved_;
  void* base_ = nullptr;
};

// The buffer behind a tensor when it is a Vulkan buffer of `ctx`'s device, else nullptr.
VulkanBuffer* vulkan_buffer_of(const Buffer* buffer, const VulkanContext& ctx) noexcept;

}  // namespace bk
