// SPDX-License-Identifier: MIT
#include "devices/sim/sim_buffer.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include "bk/error.h"
#include "bk/units.h"
#include "devices/sim/sim_device.h"

namespace bk {
namespace {

void free_aligned(void* p) noexcept { std::free(p); }

}  // namespace

SimBuffer::SimBuffer(BufferType& type, SimDevice& device, void* base, size_t size) noexcept
    : HostBuffer(type, base, size, &free_aligned), device_(&device) {}

SimBuffer::~SimBuffer() { device_->release(size()); }

bool SimBuffer::do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) {
  if (!src.type().is_host() && dynamic_cast<const SimBuffer*>(&src) == nullptr) return false;
  std::memmove(static_cast<char*>(base()) + dst_offset, static_cast<const char*>(src.base()) + src_offset,
               size);
  return true;
}

void SimBuffer::do_write(size_t offset, const void* src, size_t size) {
  HostBuffer::do_write(offset, src, size);
  const size_t stuck = this->size() / 2;
  if (device_->config().fault == SimFault::corrupt_byte && offset <= stuck && stuck < offset + size) {
    static_cast<unsigned char*>(base())[stuck] ^= 0x10;
  }
}

std::string SimBufferType::name() const { return device_->name(); }

Device& SimBufferType::device() const { return *device_; }

size_t SimBufferType::alignment() const { return device_->config().alignment; }

size_t SimBufferType::max_size() const { return device_->config().max_buffer; }

std::unique_ptr<Buffer> SimBufferType::alloc(size_t size) {
  if (size > max_size()) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{} (simulated): cannot allocate {} ({} bytes) in one buffer: its max_buffer is {}; "
                    "split the allocation or raise max_buffer in BK_SIM_DEVICES",
                    name(), format_bytes(size), size, format_bytes(max_size())));
  }
  if (device_->config().fault == SimFault::alloc_fail) {
    throw Error(
        ErrorCode::out_of_memory,
        fmt::format("{} (simulated): allocating {} failed: fault=alloc_fail is injected by BK_SIM_DEVICES",
                    name(), format_bytes(size)));
  }
  device_->reserve(size);
  const size_t align = alignment() < 64 ? 64 : alignment();
  const size_t bytes = (size + align - 1) / align * align + align;
  void* p = std::aligned_alloc(align, bytes);
  if (p == nullptr) {
    device_->release(size);
    throw Error(ErrorCode::out_of_memory,
                fmt::format("{} (simulated): the host allocator refused {} for its buffer", name(),
                            format_bytes(size)));
  }
  return std::make_unique<SimBuffer>(*this, *device_, p, size);
}

}  // namespace bk
