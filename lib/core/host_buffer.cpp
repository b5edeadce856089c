// SPDX-License-Identifier: MIT
#include "bk/host_buffer.h"

#include <cstring>

namespace bk {

HostBuffer::HostBuffer(BufferType& type, void* base, size_t size, Deleter deleter) noexcept
    : Buffer(type, size), base_(base), deleter_(deleter) {}

HostBuffer::~HostBuffer() {
  if (deleter_ != nullptr) deleter_(base_);
}

void HostBuffer::do_write(size_t offset, const void* src, size_t size) {
  std::memcpy(bytes() + offset, src, size);
}

void HostBuffer::do_read(size_t offset, void* dst, size_t size) const {
  std::memcpy(dst, bytes() + offset, size);
}

void HostBuffer::do_fill(size_t offset, uint8_t value, size_t size) {
  std::memset(bytes() + offset, value, size);
}

bool HostBuffer::do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) {
  if (!src.type().is_host()) return false;
  // memmove: src may be this very buffer, with overlapping tensors.
  std::memmove(bytes() + dst_offset, static_cast<const char*>(src.base()) + src_offset, size);
  return true;
}

}  // namespace bk
