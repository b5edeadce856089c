// SPDX-License-Identifier: MIT
#include "devices/null/null_buffer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "bk/device.h"
#include "bk/error.h"
#include "bk/units.h"

namespace bk {
namespace {

void free_aligned(void* p) noexcept { std::free(p); }

[[noreturn]] void throw_out_of_memory(const BufferType& type, size_t size, const char* why) {
  throw Error(ErrorCode::out_of_memory, fmt::format("{}: cannot allocate {} ({} bytes): {}; ask for less",
                                                    type.device().name(), format_bytes(size), size, why));
}

}  // namespace

std::string NullBufferType::name() const { return device_->name(); }

std::unique_ptr<Buffer> NullBufferType::alloc(size_t size) {
  if (size > device_->memory().total) throw_out_of_memory(*this, size, "that is more than the host has");
  // At least one unit, so that an empty buffer still has a real, aligned base address.
  const size_t bytes = (std::max<size_t>(size, 1) + kNullAlignment - 1) / kNullAlignment * kNullAlignment;
  void* p = std::aligned_alloc(kNullAlignment, bytes);
  if (p == nullptr) throw_out_of_memory(*this, size, "the host allocator refused");
  return std::make_unique<NullBuffer>(*this, p, size);
}

NullBuffer::NullBuffer(BufferType& type, void* base, size_t size) noexcept
    : HostBuffer(type, base, size, &free_aligned) {}

bool NullBuffer::do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) {
  if (!src.type().is_host() && dynamic_cast<const NullBuffer*>(&src) == nullptr) return false;
  // memmove: src may be this very buffer, with overlapping tensors.
  std::memmove(static_cast<char*>(base()) + dst_offset, static_cast<const char*>(src.base()) + src_offset,
               size);
  return true;
}

}  // namespace bk
