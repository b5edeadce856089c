// SPDX-License-Identifier: MIT
#pragma once
// The memory of a simulated device: host memory (a HostBuffer underneath) whose bytes count
// against the device's declared size until the buffer is destroyed. With fault=corrupt_byte
// (sim_config.h) writes leave one bit flipped in the middle of the buffer. Internal to the sim
// device.

#include "bk/host_buffer.h"

namespace bk {

class SimDevice;

class SimBuffer final : public HostBuffer {
 public:
  // Takes ownership of `base` (from std::aligned_alloc) and of `size` reserved bytes.
  SimBuffer(BufferType& type, SimDevice& device, void* base, size_t size) noexcept;
  ~SimBuffer() override;

 protected:
  // Reads host buffers and other simulated buffers directly: both are real memory.
  bool do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) override;
  // Injects fault=corrupt_byte after the write.
  void do_write(size_t offset, const void* src, size_t size) override;

 private:
  SimDevice* device_;
};

}  // namespace bk
