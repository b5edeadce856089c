// SPDX-License-Identifier: MIT
#pragma once
// VulkanStagingArena: host-visible memory a stream borrows for asynchronous transfers.
//
// take() hands out slices of 16 MiB blocks (allocated on first need and kept for reuse);
// every slice stays valid until reset(), which the owner calls once the stream has finished
// with them. Not thread-safe: it belongs to one stream.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices/vulkan/vk_memory.h"

namespace bk {

class VulkanContext;

class VulkanStagingArena {
 public:
  explicit VulkanStagingArena(VulkanContext& ctx) : ctx_(ctx) {}

  struct Slice {
    const VulkanAllocation* allocation;
    size_t offset;  // in the allocation
    uint8_t* host;  // the same bytes, mapped
  };
  // `size` must be at most kBlockSize. Throws Error(out_of_memory) when a block cannot be had.
  Slice take(size_t size);
  void reset() noexcept;

  static constexpr size_t kBlockSize = size_t{16} << 20;

 private:
  VulkanContext& ctx_;
  std::vector<std::unique_ptr<VulkanAllocation>> blocks_;
  size_t block_ = 0;
  size_t used_ = 0;
};

}  // namespace bk
