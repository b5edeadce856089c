// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_buffer.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>

#include "bk/error.h"
#include "bk/host_buffer.h"
#include "bk/units.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_device_scope.h"
#include "devices/cuda/cuda_error.h"

namespace bk {
namespace {

void free_pinned(void* p) noexcept { cudaFreeHost(p); }

[[noreturn]] void throw_device_oom(const CudaDevice& device, const BufferType& type, size_t size,
                                   cudaError_t err) {
  const std::string call = cuda_error_code(err);
  size_t free = 0, total = 0;
  cudaGetLastError();
  const bool known = cudaMemGetInfo(&free, &total) == cudaSuccess;
  cudaGetLastError();
  const std::string available =
      known ? fmt::format("{} of {} device memory is free", format_bytes(free), format_bytes(total))
            : "the free device memory is unknown";
  throw Error(
      ErrorCode::out_of_memory,
      fmt::format("{}: cannot allocate {} ({} bytes) in buffer type '{}': cudaMalloc failed ({}); {}; ask "
                  "for less or free device memory (nvidia-smi shows who holds it)",
                  device.name(), format_bytes(size), size, type.name(), call, available));
}

}  // namespace

std::string CudaBufferType::name() const { return device_.name(); }

Device& CudaBufferType::device() const { return device_; }

size_t CudaBufferType::max_size() const { return device_.info().total_memory; }

std::unique_ptr<Buffer> CudaBufferType::alloc(size_t size) {
  if (size > max_size()) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{}: cannot allocate {} ({} bytes) in buffer type '{}': the device has only {} in all",
                    device_.name(), format_bytes(size), size, name(), format_bytes(max_size())));
  }
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  void* p = nullptr;
  // At least one aligned block, so that even an empty buffer has a real base address.
  const cudaError_t err = cudaMalloc(&p, std::max(size, kCudaAlignment));
  if (err == cudaErrorMemoryAllocation) throw_device_oom(device_, *this, size, err);
  cuda_check(err, "cudaMalloc", device_.name(), fmt::format("of {} bytes", size));
  return std::make_unique<CudaBuffer>(*this, p, size);
}

CudaBuffer::CudaBuffer(CudaBufferType& type, void* device_ptr, size_t size) noexcept
    : Buffer(type, size), device_(type.cuda_device()), ptr_(device_ptr) {}

CudaBuffer::~CudaBuffer() {
  // cudaFree waits for work still using the memory. A destructor cannot report a failure; the
  // only one possible here is a context already lost, which earlier calls have reported.
  int previous = -1;
  cudaGetDevice(&previous);
  cudaSetDevice(device_.ordinal());
  cudaFree(ptr_);
  if (previous >= 0) cudaSetDevice(previous);
}

void CudaBuffer::do_write(size_t offset, const void* src, size_t size) {
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaMemcpy(bytes() + offset, src, size, cudaMemcpyHostToDevice), "cudaMemcpy", device_.name(),
             fmt::format("(host to device, {} bytes at offset {})", size, offset));
}

void CudaBuffer::do_read(size_t offset, void* dst, size_t size) const {
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaMemcpy(dst, bytes() + offset, size, cudaMemcpyDeviceToHost), "cudaMemcpy", device_.name(),
             fmt::format("(device to host, {} bytes at offset {})", size, offset));
}

void CudaBuffer::do_fill(size_t offset, uint8_t value, size_t size) {
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  cuda_check(cudaMemset(bytes() + offset, value, size), "cudaMemset", device_.name(),
             fmt::format("({} bytes at offset {})", size, offset));
}

bool CudaBuffer::do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size) {
  const char* from = static_cast<const char*>(src.base()) + src_offset;
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  if (src.type().is_host()) {
    cuda_check(cudaMemcpy(bytes() + dst_offset, from, size, cudaMemcpyHostToDevice), "cudaMemcpy",
               device_.name(),
               fmt::format("(host buffer '{}' to device, {} bytes)", src.type().name(), size));
    return true;
  }
  const CudaBuffer* other = cuda_buffer_of(&src);
  if (other == nullptr) return false;
  if (&other->device_ == &device_) {
    cuda_check(cudaMemcpy(bytes() + dst_offset, from, size, cudaMemcpyDeviceToDevice), "cudaMemcpy",
               device_.name(), fmt::format("(device to device, {} bytes)", size));
  } else {
    cuda_check(cudaMemcpyPeer(bytes() + dst_offset, device_.ordinal(), from, other->device_.ordinal(), size),
               "cudaMemcpyPeer", device_.name(),
               fmt::format("(from {}, {} bytes)", other->device_.name(), size));
  }
  return true;
}

std::string CudaHostBufferType::name() const { return device_.name() + "_Host"; }

Device& CudaHostBufferType::device() const { return device_; }

std::unique_ptr<Buffer> CudaHostBufferType::alloc(size_t size) {
  CudaDeviceScope scope(device_.ordinal(), device_.name());
  void* p = nullptr;
  const cudaError_t err = cudaHostAlloc(&p, std::max(size, kCudaAlignment), cudaHostAllocPortable);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw Error(
        ErrorCode::out_of_memory,
        fmt::format("{}: cannot pin {} ({} bytes) of host memory in buffer type '{}': cudaHostAlloc failed "
                    "({}); ask for less, or use pageable memory",
                    device_.name(), format_bytes(size), size, name(), cuda_error_code(err)));
  }
  cuda_check(err, "cudaHostAlloc", device_.name(), fmt::format("of {} bytes", size));
  return std::make_unique<HostBuffer>(*this, p, size, &free_pinned);
}

const CudaBuffer* cuda_buffer_of(const Buffer* buffer) noexcept {
  return dynamic_cast<const CudaBuffer*>(buffer);
}

}  // namespace bk
