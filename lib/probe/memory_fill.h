// SPDX-License-Identifier: MIT
#pragma once
// A share of a device's memory held in buffers and filled with test patterns
// (probe/mem_pattern.h), so that `bkctl smoke` can check more memory than one buffer may hold
// and keep it filled while the device works (level 3 verifies it again afterwards).
//
// The bytes are split into buffers of at most the buffer type's max_size(); pattern words are
// numbered per buffer, and a mismatch's offset counts from the start of the first buffer.
// Errors are the device's (Error(out_of_memory) when it cannot hold the bytes). Not thread-safe.

#include <memory>
#include <vector>

#include "bk/device.h"
#include "probe/mem_pattern.h"

namespace bk {

class MemoryFill {
 public:
  MemoryFill(Device& device, size_t bytes);

  size_t bytes() const noexcept { return bytes_; }
  size_t buffers() const noexcept { return buffers_.size(); }

  // Writes the pattern over every buffer; returns the seconds inside Buffer::write.
  double write(PatternKind kind);
  // Reads every buffer back against the pattern; mismatches summed over the buffers.
  VerifyResult verify(PatternKind kind);

 private:
  size_t bytes_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  PatternStaging staging_;
};

}  // namespace bk
