// SPDX-License-Identifier: MIT
#pragma once
// CudaScratch: temporary device memory of one backend stream (converted GEMM operands, pointer
// arrays), reused from node to node.
//
// It only grows. Growing frees the old block stream-ordered (cudaFreeAsync) where the device
// has memory pools, so work already queued keeps its memory; elsewhere it waits for the stream
// first. Memory returned by take() is valid for work enqueued on the stream until the next
// take().
//
// Threading: one thread at a time, with its backend.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace bk {

class CudaScratch {
 public:
  CudaScratch(cudaStream_t stream, bool memory_pools, std::string who) noexcept
      : stream_(stream), pools_(memory_pools), who_(std::move(who)) {}
  ~CudaScratch();
  CudaScratch(const CudaScratch&) = delete;
  CudaScratch& operator=(const CudaScratch&) = delete;

  // At least `bytes` of device memory, aligned to 256 bytes. Must be called with the stream's
  // device current. Throws Error(out_of_memory) naming the device and size.
  void* take(size_t bytes);
  size_t capacity() const noexcept { return capacity_; }
  // Gives the memory back (stream-ordered where possible); take() allocates anew.
  void release() noexcept;

 private:
  cudaStream_t stream_;
  bool pools_;
  std::string who_;
  void* ptr_ = nullptr;
  size_t capacity_ = 0;
};

// Splits one scratch block into aligned parts: offsets grow by each part's rounded-up size.
class CudaScratchLayout {
 public:
  // Reserves `bytes` and returns its offset in the block.
  size_t add(size_t bytes) noexcept;
  size_t size() const noexcept { return size_; }

 private:
  size_t size_ = 0;
};

}  // namespace bk
