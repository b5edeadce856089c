// SPDX-License-Identifier: MIT
#include "probe/memory_fill.h"

#include <algorithm>

namespace bk {
namespace {

size_t largest_buffer(Device& device, size_t bytes) {
  return std::max<size_t>(1, std::min(bytes, device.buffer_type().max_size()));
}

}  // namespace

MemoryFill::MemoryFill(Device& device, size_t bytes)
    : bytes_(bytes), staging_(largest_buffer(device, bytes)) {
  const size_t most = largest_buffer(device, bytes);
  for (size_t placed = 0; placed < bytes;) {
    const size_t size = std::min(most, bytes - placed);
    buffers_.push_back(device.buffer_type().alloc(size));
    placed += size;
  }
}

double MemoryFill::write(PatternKind kind) {
  double seconds = 0;
  for (size_t i = 0; i < buffers_.size(); ++i) seconds += write_pattern(*buffers_[i], i, staging_, kind);
  return seconds;
}

VerifyResult MemoryFill::verify(PatternKind kind) {
  VerifyResult total;
  size_t base = 0;
  for (size_t i = 0; i < buffers_.size(); ++i) {
    VerifyResult one = verify_pattern(*buffers_[i], i, staging_, kind);
    total.mismatches += one.mismatches;
    total.read_seconds += one.read_seconds;
    if (!total.first && one.first) {
      total.first = one.first;
      total.first->offset += base;
    }
    base += buffers_[i]->size();
  }
  return total;
}

}  // namespace bk
