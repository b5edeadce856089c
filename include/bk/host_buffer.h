// SPDX-License-Identifier: MIT
#pragma once
// HostBuffer: a Buffer over memory the CPU addresses directly (base() is a real pointer).
//
// The CPU's buffers are HostBuffers, and so are the pinned host buffers of GPU devices and the
// memory of simulated devices: every kind that hands out host memory shares this one
// implementation of the byte primitives. With a deleter the buffer owns its memory and frees it
// when destroyed; without one it wraps memory the caller keeps alive (buffer_from_host_ptr).
// Ownership and threading are those of Buffer (buffer.h).

#include <cstddef>
#include <cstdint>

#include "bk/api.h"
#include "bk/buffer.h"

namespace bk {

class BK_API HostBuffer : public Buffer {
 public:
  using Deleter = void (*)(void*) noexcept;
  HostBuffer(BufferType& type, void* base, size_t size, Deleter deleter = nullptr) noexcept;
  ~HostBuffer() override;

  void* base() const override { return base_; }

 protected:
  void do_write(size_t offset, const void* src, size_t size) override;
  void do_read(size_t offset, void* dst, size_t size) const override;
  void do_fill(size_t offset, uint8_t value, size_t size) override;
  // Copies from any host buffer (its base() is a real address); false for device buffers.
  bool do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) override;

 private:
  char* bytes() const noexcept { return static_cast<char*>(base_); }

  void* base_;
  Deleter deleter_;
};

}  // namespace bk
