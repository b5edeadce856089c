// SPDX-License-Identifier: MIT
#pragma once
// Device memory: which memory type each kind of buffer uses, how much this process holds per
// heap, and VulkanAllocation, a byte range spread over as many VkDeviceMemory chunks as the
// device's allocation limit requires.
//
// Why chunks: drivers cap one VkDeviceMemory (maxMemoryAllocationSize, often 2-4 GiB) and one
// VkBuffer (maxBufferSize), while a bk Buffer may be larger. Each chunk is one VkBuffer bound
// to its own memory; every chunk but the last has chunk_size() bytes, a multiple of 4096, so
// aligned offsets stay aligned inside their chunk. A range that crosses a chunk boundary is
// split by for_each_piece(); range() answers whether a tensor lies in one chunk (which a
// kernel needs to bind it, together with maxStorageBufferRange).
//
// Threading: VulkanHeapUsage is atomic; an allocation is used by one thread at a time.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/vulkan/vk_api.h"

namespace bk {

class VulkanContext;

// device: the device's own (fastest) memory. host: host-visible, host-coherent memory for
// staging and pinned host buffers, preferably system memory that the CPU caches.
enum class VulkanMemoryKind { device, host };

// The memory type for `kind` among those allowed by `type_bits`, or nullopt. UMA devices
// (integrated, CPU) get device-local memory that is also host-visible, so they need no staging.
std::optional<uint32_t> vulkan_pick_memory_type(const VkPhysicalDeviceMemoryProperties& memory,
                                                VkPhysicalDeviceType device_type, uint32_t type_bits,
                                                VulkanMemoryKind kind);

struct VulkanDeviceInfo;
struct VulkanInstanceFns;
// Bytes this process holds in each heap (what budgets are compared against when the driver
// has no VK_EXT_memory_budget).
class VulkanHeapUsage {
 public:
  void add(uint32_t heap, uint64_t bytes) noexcept { bytes_[heap].fetch_add(bytes); }
  void sub(uint32_t heap, uint64_t bytes) noexcept { bytes_[heap].fetch_sub(bytes); }
  uint64_t get(uint32_t heap) const noexcept { return bytes_[heap].load(); }

 private:
  std::array<std::atomic<uint64_t>, VK_MAX_MEMORY_HEAPS> bytes_{};
};

struct VulkanHeapBudget;
// Budget and usage of every heap: the driver's (VK_EXT_memory_budget), else the heap size and
// this process's usage.
std::vector<VulkanHeapBudget> vulkan_heap_budgets(const VulkanInstanceFns& fn, const VulkanDeviceInfo& info,
                                                  const VulkanHeapUsage& usage);

// The usage of every VkBuffer bk creates on the device: storage and transfers, and uniform
// texel buffers where the device reads R32G32B32A32_SFLOAT through them (the flat kernels'
// texel path, vk_ops.cpp). One set for all, so the memory types probed once fit every chunk.
VkBufferUsageFlags vulkan_buffer_usage(const VulkanDeviceInfo& info) noexcept;

// One VkBuffer bound to its own VkDeviceMemory, persistently mapped when host-visible memory
// was asked to be mapped.
class VulkanChunk {
 public:
  // Throws Error(out_of_memory) naming the device, size and heap when the driver refuses.
  // `purpose` completes error messages ("chunk 2 of 3 of a 5.00 GiB buffer").
  VulkanChunk(VulkanContext& ctx, VkDeviceSize size, uint32_t memory_type, bool map,
              const std::string& purpose);
  ~VulkanChunk();
  VulkanChunk(const VulkanChunk&) = delete;
  VulkanChunk& operator=(const VulkanChunk&) = delete;

  VkBuffer buffer() const noexcept { return buffer_; }
  VkDeviceSize size() const noexcept { return size_; }
  // The chunk's bytes in host memory, or nullptr when not mapped.
  uint8_t* mapped() const noexcept { return mapped_; }

 private:
  void release() noexcept;

  VulkanContext& ctx_;
  VkDeviceSize size_;
  uint32_t heap_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize allocated_ = 0;
  uint8_t* mapped_ = nullptr;
};

// A piece of a range that lies inside one chunk.
struct VulkanRange {
  const VulkanChunk* chunk;
  size_t offset;  // inside the chunk
};

class VulkanAllocation {
 public:
  // Allocates `size` (> 0) bytes of `kind` memory, mapped when `map` and the memory type is
  // host-visible and coherent. Throws Error(out_of_memory) naming the device, the size and the
  // heap's free memory when the heap cannot hold it (checked before asking the driver, so an
  // absurd size fails cleanly instead of overcommitting).
  VulkanAllocation(VulkanContext& ctx, size_t size, VulkanMemoryKind kind, bool map);

  size_t size() const noexcept { return size_; }
  size_t chunk_size() const noexcept { return chunk_size_; }
  size_t chunk_count() const noexcept { return chunks_.size(); }
  const VulkanChunk& chunk(size_t i) const noexcept { return *chunks_[i]; }
  bool mapped() const noexcept { return mapped_; }

  // Calls fn(const VulkanChunk&, size_t chunk_offset, size_t done, size_t length) for each
  // piece of [offset, offset + size) in order; `done` is the bytes before this piece.
  template <class Fn>
  void for_each_piece(size_t offset, size_t size, Fn&& fn) const {
    size_t done = 0;
    while (done < size) {
      const size_t at = offset + done;
      const size_t index = at / chunk_size_;
      const size_t in_chunk = at - index * chunk_size_;
      const size_t len = std::min(size - done, chunks_[index]->size() - in_chunk);
      fn(*chunks_[index], in_chunk, done, len);
      done += len;
    }
  }

  // The chunk holding all of [offset, offset + size), or nullopt when the range crosses chunks.
  std::optional<VulkanRange> range(size_t offset, size_t size) const noexcept;

 private:
  size_t size_;
  size_t chunk_size_;
  bool mapped_ = false;
  std::vector<std::unique_ptr<VulkanChunk>> chunks_;
};

}  // namespace bk
