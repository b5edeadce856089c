// SPDX-License-Identifier: MIT
#include "core/multi_buffer.h"

#include <utility>

namespace bk {

MultiBuffer::MultiBuffer(std::vector<std::unique_ptr<Buffer>> parts) : parts_(std::move(parts)) {}

size_t MultiBuffer::size() const noexcept {
  size_t total = 0;
  for (const auto& part : parts_) total += part->size();
  return total;
}

void MultiBuffer::set_usage(BufferUsage usage) {
  usage_ = usage;
  for (const auto& part : parts_) part->set_usage(usage);
}

void MultiBuffer::clear(uint8_t value) {
  for (const auto& part : parts_) part->clear(value);
}

void MultiBuffer::reset() {
  for (const auto& part : parts_) part->reset();
}

}  // namespace bk
