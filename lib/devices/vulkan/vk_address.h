// SPDX-License-Identifier: MIT
#pragma once
// VulkanAddressRange: a unique, inaccessible host address range that stands for a device
// buffer's memory.
//
// Tensor::data must point into [base, base + size) of its buffer even when the memory is not
// host-addressable. Reserving the range (PROT_NONE, no backing memory) gives every device buffer
// distinct addresses, so overlap checks across buffers stay meaningful, and any code that
// dereferences a device pointer by mistake faults at once instead of corrupting host memory.

#include <cstddef>

namespace bk {

class VulkanAddressRange {
 public:
  // Throws Error(out_of_memory) when the address space is exhausted.
  explicit VulkanAddressRange(size_t size);
  ~VulkanAddressRange();
  VulkanAddressRange(const VulkanAddressRange&) = delete;
  VulkanAddressRange& operator=(const VulkanAddressRange&) = delete;

  void* base() const noexcept { return base_; }

 private:
  void* base_ = nullptr;
  size_t length_ = 0;
};

}  // namespace bk
