// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_buffer.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "bk/device.h"
#include "bk/error.h"
#include "bk/units.h"
#include "devices/cpu/cpu_info.h"

namespace bk {
namespace {

constexpr size_t round_up(size_t n, size_t align) noexcept { return (n + align - 1) / align * align; }

void free_aligned(void* p) noexcept { std::free(p); }

constexpr size_t kHugePage = size_t{2} << 20;

// Whole 2 MiB pages, and a request that the kernel back them with transparent huge pages where it
// can (THP in "madvise" mode, the default of many distributions, needs the request); where it
// cannot, the memory is ordinary pages and nothing else changes.
void* alloc_huge(size_t bytes) noexcept {
  const size_t rounded = round_up(bytes, kHugePage);
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p != nullptr) ::madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

[[noreturn]] void throw_out_of_memory(const BufferType& type, size_t size, const MemoryInfo& mem,
                                      const char* why) {
  throw Error(
      ErrorCode::out_of_memory,
      fmt::format("{}: cannot allocate {} ({} bytes) in buffer type '{}': {}; {} of {} system memory is "
                  "available, ask for less or free memory",
                  type.device().name(), format_bytes(size), size, type.name(), why, format_bytes(mem.free),
                  format_bytes(mem.total)));
}

}  // namespace

size_t CpuBufferType::max_size() const {
  return static_cast<size_t>(PTRDIFF_MAX) / kCpuAlignment * kCpuAlignment;
}

std::unique_ptr<Buffer> CpuBufferType::alloc(size_t size) {
  if (size > max_size()) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format(
            "{}: cannot allocate {} bytes in buffer type '{}': the most one buffer can hold is {} bytes",
            device().name(), size, name(), max_size()));
  }
  const MemoryInfo mem = cpu_memory();
  if (size > mem.total) throw_out_of_memory(*this, size, mem, "that is more than the machine has");
  // At least one line, so that even an empty buffer has a real, aligned base address.
  const size_t bytes = round_up(std::max<size_t>(size, 1), kCpuAlignment);
  void* p = bytes >= kHugePageMinBuffer ? alloc_huge(bytes) : std::aligned_alloc(kCpuAlignment, bytes);
  if (p == nullptr) throw_out_of_memory(*this, size, mem, "the system allocator refused");
  return std::make_unique<HostBuffer>(*this, p, size, &free_aligned);
}

std::unique_ptr<Buffer> cpu_buffer_from_host_ptr(BufferType& type, void* ptr, size_t size) {
  const std::string dev = type.device().name();
  if (ptr == nullptr) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{}: cannot wrap a null host pointer ({} bytes) as a buffer; pass allocated memory", dev,
                    size));
  }
  const auto addr = reinterpret_cast<uintptr_t>(ptr);
  if (addr > UINTPTR_MAX - size) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: host range at {} of {} bytes runs past the end of the address space", dev,
                            fmt::ptr(ptr), size));
  }
  if (const size_t misalign = addr % kCpuAlignment; misalign != 0) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format(
            "{}: host pointer {} is not aligned to {} bytes (it is {} bytes past a boundary); allocate "
            "it with std::aligned_alloc({}, n), or allocate from the '{}' buffer type and copy into it",
            dev, fmt::ptr(ptr), kCpuAlignment, misalign, kCpuAlignment, type.name()));
  }
  return std::make_unique<HostBuffer>(type, ptr, size);
}

}  // namespace bk
