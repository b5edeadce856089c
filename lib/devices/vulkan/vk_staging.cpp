// SPDX-License-Identifier: MIT
#include "devices/vulkan/vk_staging.h"

namespace bk {
namespace {

constexpr size_t kSliceAlignment = 64;

}  // namespace

VulkanStagingArena::Slice VulkanStagingArena::take(size_t size) {
  size_t at = (used_ + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment;
  if (block_ < blocks_.size() && at + size > kBlockSize) {
    ++block_;
    at = 0;
  }
  if (block_ == blocks_.size()) {
    blocks_.push_back(std::make_unique<VulkanAllocation>(ctx_, kBlockSize, VulkanMemoryKind::host, true));
    at = 0;
  }
  used_ = at + size;
  const VulkanAllocation& block = *blocks_[block_];
  return {&block, at, block.chunk(0).mapped() + at};
}

void VulkanStagingArena::reset() noexcept {
  block_ = 0;
  used_ = 0;
}

}  // namespace bk
