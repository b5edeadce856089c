// SPDX-License-Identifier: MIT
#pragma once
// The null device's memory: NullBufferType hands out NullBuffers, which are host memory underneath
// (bk::HostBuffer implements the byte primitives) but are device memory to everyone else:
// is_host() is false, so the scheduler copies data to and from it as it would for a real
// accelerator, and the CPU does not read it in place.
//
// Ownership and threading are those of bk/buffer.h.

#include <cstddef>
#include <memory>
#include <string>

#include "bk/buffer.h"
#include "bk/host_buffer.h"

namespace bk {

// A typical accelerator's minimum offset alignment; also what placed tensors honour.
inline constexpr size_t kNullAlignment = 256;

class NullBufferType final : public BufferType {
 public:
  explicit NullBufferType(Device& device) noexcept : device_(&device) {}

  std::string name() const override;
  Device& device() const override { return *device_; }
  // Throws Error(out_of_memory) naming the device and size when the request exceeds the host's
  // memory (Linux overcommits: checking first beats the OOM killer) or the allocator refuses.
  // A size of 0 gives a valid, empty buffer.
  std::unique_ptr<Buffer> alloc(size_t size) override;
  size_t alignment() const override { return kNullAlignment; }
  bool is_host() const override { return false; }

 private:
  Device* device_;
};

class NullBuffer final : public HostBuffer {
 public:
  // Takes ownership of `base`, from std::aligned_alloc.
  NullBuffer(BufferType& type, void* base, size_t size) noexcept;

 protected:
  // Reads host buffers and null buffers directly (both are real memory); false for the rest,
  // and the caller then stages through the host.
  bool do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) override;
};

}  // namespace bk
