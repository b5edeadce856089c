// SPDX-License-Identifier: MIT
#pragma once
// The CUDA buffer types and their buffers.
//
// "CUDA0" (device memory): cudaMalloc. Tensor data are device addresses; with unified
// addressing they never collide with host addresses, so a CudaBuffer is recognised by type, and
// copies between GPUs go peer to peer. The synchronous Buffer accessors run on the device's
// legacy default stream, which orders them after all work already queued on the plugin's
// (blocking) backend streams and before work queued later: a write after compute() sees its
// results without an explicit synchronize.
//
// "CUDA0_Host" (pinned host memory): cudaHostAlloc(portable), offered as the device's
// host_buffer_type(). is_host(): tensor data are real host pointers; transfers from it run at
// full PCIe/NVLink speed and truly asynchronously.
//
// Threading: as bk::Buffer (one thread at a time per buffer).

#include <memory>

#include "bk/buffer.h"

namespace bk {

class CudaDevice;

inline constexpr size_t kCudaAlignment = 256;  // cudaMalloc's guarantee, and cuBLAS's preference

class CudaBufferType final : public BufferType {
 public:
  explicit CudaBufferType(CudaDevice& device) noexcept : device_(device) {}

  std::string name() const override;
  Device& device() const override;
  CudaDevice& cuda_device() const noexcept { return device_; }
  // Throws Error(out_of_memory) naming the device, the size and the free memory when cudaMalloc
  // fails; Error(invalid_argument) above max_size(). A size of 0 gives a valid, empty buffer.
  std::unique_ptr<Buffer> alloc(size_t size) override;
  size_t alignment() const override { return kCudaAlignment; }
  // The device's total memory.
  size_t max_size() const override;
  bool is_host() const override { return false; }

 private:
  CudaDevice& device_;
};

class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(CudaBufferType& type, void* device_ptr, size_t size) noexcept;
  ~CudaBuffer() override;

  void* base() const override { return ptr_; }
  CudaDevice& cuda_device() const noexcept { return device_; }

 protected:
  void do_write(size_t offset, const void* src, size_t size) override;
  void do_read(size_t offset, void* dst, size_t size) const override;
  void do_fill(size_t offset, uint8_t value, size_t size) override;
  // From any host buffer, from this GPU, and from other GPUs (peer to peer); false otherwise.
  bool do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) override;

 private:
  char* bytes() const noexcept { return static_cast<char*>(ptr_); }

  CudaDevice& device_;
  void* ptr_;
};

class CudaHostBufferType final : public BufferType {
 public:
  explicit CudaHostBufferType(CudaDevice& device) noexcept : device_(device) {}

  std::string name() const override;  // "CUDA0_Host"
  Device& device() const override;
  // Throws Error(out_of_memory) naming the size when the driver cannot pin that much.
  std::unique_ptr<Buffer> alloc(size_t size) override;
  size_t alignment() const override { return kCudaAlignment; }
  bool is_host() const override { return true; }

 private:
  CudaDevice& device_;
};

// The CUDA device buffer behind `buffer` (of any GPU), or nullptr for every other kind.
const CudaBuffer* cuda_buffer_of(const Buffer* buffer) noexcept;

}  // namespace bk
