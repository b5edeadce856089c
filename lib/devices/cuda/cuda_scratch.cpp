// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_scratch.h"

#include <fmt/format.h>

#include "bk/units.h"
#include "devices/cuda/cuda_error.h"

namespace bk {
namespace {

constexpr size_t kAlign = 256;

size_t round_up(size_t n) noexcept { return (n + kAlign - 1) / kAlign * kAlign; }

}  // namespace

CudaScratch::~CudaScratch() { release(); }

void CudaScratch::release() noexcept {
  if (ptr_ == nullptr) return;
  if (pools_) {
    cudaFreeAsync(ptr_, stream_);
  } else {
    cudaStreamSynchronize(stream_);
    cudaFree(ptr_);
  }
  ptr_ = nullptr;
  capacity_ = 0;
}

void* CudaScratch::take(size_t bytes) {
  if (bytes <= capacity_) return ptr_;
  release();
  // Grow by half again, so that a sequence of slightly larger requests does not reallocate each time.
  const size_t want = round_up(bytes + bytes / 2);
  const cudaError_t err = pools_ ? cudaMallocAsync(&ptr_, want, stream_) : cudaMalloc(&ptr_, want);
  if (err != cudaSuccess) {
    ptr_ = nullptr;
    cuda_fail(err, pools_ ? "cudaMallocAsync" : "cudaMalloc", who_,
              fmt::format("of {} scratch memory for a mul_mat's converted operands", format_bytes(want)));
  }
  capacity_ = want;
  return ptr_;
}

size_t CudaScratchLayout::add(size_t bytes) noexcept {
  const size_t at = size_;
  size_ += round_up(bytes);
  return at;
}

}  // namespace bk
