// SPDX-License-Identifier: MIT
#pragma once
// MultiBuffer: several buffers that act as one for clear() and usage. The graph allocator uses
// it when one allocation would exceed a buffer type's max size. Owns its parts.

#include <memory>
#include <span>
#include <vector>

#include "bk/buffer.h"

namespace bk {

class MultiBuffer {
 public:
  explicit MultiBuffer(std::vector<std::unique_ptr<Buffer>> parts);

  std::span<const std::unique_ptr<Buffer>> parts() const noexcept { return parts_; }
  size_t size() const noexcept;  // sum of the parts
  BufferUsage usage() const noexcept { return usage_; }
  void set_usage(BufferUsage usage);
  void clear(uint8_t value);
  void reset();

 private:
  std::vector<std::unique_ptr<Buffer>> parts_;
  BufferUsage usage_ = BufferUsage::any;
};

}  // namespace bk
