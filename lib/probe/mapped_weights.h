// SPDX-License-Identifier: MIT
#pragma once
// A GGUF file's weights read in place: one read-only host buffer over the file's data section,
// so the device that reads host memory (the CPU) computes from the file's mapping and nothing is
// copied. Pages come from the page cache on first use and are shared with every process that
// maps the same file; a model larger than free memory still runs, paged from the file.
//
// The buffer refuses writes (Error(unsupported) naming the file): the mapping is read-only, and
// weights are never written. Tensors sit at their offsets in the file, aligned as the file says
// (32 bytes by default), which the CPU kernels read as any other view.
//
// Ownership: the file (and so its mapping) must outlive this object, and this object every
// tensor placed in it. Threading: as Buffer. Errors: bk::Error(invalid_argument) for a
// header-only file.

#include <cstddef>
#include <memory>

#include "bk/buffer.h"
#include "bk/device.h"
#include "probe/gguf.h"

namespace bk {

class MappedWeights {
 public:
  // `host`: the device whose memory the mapping is (the CPU); it reads the tensors placed here.
  MappedWeights(const GgufFile& file, Device& host);
  MappedWeights(const MappedWeights&) = delete;
  MappedWeights& operator=(const MappedWeights&) = delete;
  ~MappedWeights();

  // Points `tensor` at `stored`'s bytes in the file (the caller checked their sizes agree).
  void place(Tensor& tensor, const GgufTensor& stored);
  const BufferType& buffer_type() const noexcept;
  // Bytes of the tensors placed so far: what the host's memory holds for them once read.
  size_t placed_bytes() const noexcept { return placed_; }

 private:
  class Type;
  std::unique_ptr<Type> type_;
  std::unique_ptr<Buffer> buffer_;
  size_t placed_ = 0;
};

}  // namespace bk
