// SPDX-License-Identifier: MIT
#pragma once
// The CPU's buffer type ("CPU"), which hands out HostBuffers (bk/host_buffer.h).
//
// Allocations are 64-byte aligned (a cache line, and the widest vector load) and rounded up to a
// whole number of lines, so every tensor placed at an aligned offset can use aligned loads.
// Buffers of kHugePageMinBuffer bytes or more (weights, large activations) are whole 2 MiB pages
// with transparent huge pages asked for: streaming weights from memory reads them faster with
// fewer TLB misses (docs/performance.md, "Huge pages for large CPU buffers"). The buffer type
// refuses a request larger than the machine's memory up front: Linux overcommits, so such a
// request would otherwise "succeed" and end in the OOM killer at first touch.
//
// Ownership and threading are those of BufferType and Buffer (core/buffer.h).

#include <cstddef>
#include <memory>

#include "bk/buffer.h"
#include "bk/host_buffer.h"

namespace bk {

inline constexpr size_t kCpuAlignment = 64;
// From this size up a buffer is rounded to 2 MiB pages (at most 1/8 more memory).
inline constexpr size_t kHugePageMinBuffer = size_t{16} << 20;

class CpuBufferType final : public BufferType {
 public:
  explicit CpuBufferType(Device& device) noexcept : device_(&device) {}

  std::string name() const override { return "CPU"; }
  Device& device() const override { return *device_; }
  // Throws Error(out_of_memory) naming the size, the device and the memory available when the
  // request exceeds the machine's memory or the allocation fails; Error(invalid_argument) past
  // max_size(). A size of 0 gives a valid, empty buffer.
  std::unique_ptr<Buffer> alloc(size_t size) override;
  size_t alignment() const override { return kCpuAlignment; }
  // The largest object the address space can hold, in whole cache lines.
  size_t max_size() const override;
  bool is_host() const override { return true; }

 private:
  Device* device_;
};

// Wraps caller memory [ptr, ptr + size) as a buffer of `type`, without copying or owning it.
// Throws Error(invalid_argument) when ptr is null, when the range wraps around the address space,
// or when ptr is not aligned to kCpuAlignment (the message says by how much and what to do).
std::unique_ptr<Buffer> cpu_buffer_from_host_ptr(BufferType& type, void* ptr, size_t size);

}  // namespace bk
