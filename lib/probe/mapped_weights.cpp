// SPDX-License-Identifier: MIT
#include "probe/mapped_weights.h"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "bk/error.h"
#include "bk/host_buffer.h"
#include "bk/tensor.h"

namespace bk {

// Host memory that is a file: readable by whoever reads host memory, never a source of new
// buffers.
class MappedWeights::Type final : public BufferType {
 public:
  Type(Device& host, size_t alignment) : host_(&host), alignment_(alignment) {}

  std::string name() const override { return host_->name() + "_Mapped"; }
  Device& device() const override { return *host_; }
  std::unique_ptr<Buffer> alloc(size_t size) override {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: buffer type '{}' wraps a mapped file; it cannot allocate {} bytes, allocate "
                            "from '{}' instead",
                            host_->name(), name(), size, host_->buffer_type().name()));
  }
  size_t alignment() const override { return alignment_; }
  bool is_host() const override { return true; }

 private:
  Device* host_;
  size_t alignment_;
};

namespace {

class ReadOnlyBuffer final : public HostBuffer {
 public:
  ReadOnlyBuffer(BufferType& type, const void* base, size_t size, std::string path)
      // The mapping is read-only; this buffer never writes through the pointer it hands out.
      : HostBuffer(type, const_cast<void*>(base), size), path_(std::move(path)) {}

 protected:
  void do_write(size_t offset, const void* /*src*/, size_t size) override { refuse("write", offset, size); }
  void do_fill(size_t offset, uint8_t /*value*/, size_t size) override { refuse("fill", offset, size); }
  bool do_copy_from(const Buffer& /*src*/, size_t /*src_offset*/, size_t dst_offset, size_t size) override {
    refuse("copy into", dst_offset, size);
  }

 private:
  [[noreturn]] void refuse(const char* what, size_t offset, size_t size) const {
    throw Error(ErrorCode::unsupported,
                fmt::format("{}: cannot {} {} bytes at offset {} of '{}': the weights are read in place "
                            "from {}, which is mapped read-only",
                            type().device().name(), what, size, offset, type().name(), path_));
  }

  std::string path_;
};

}  // namespace

MappedWeights::MappedWeights(const GgufFile& file, Device& host)
    : type_(std::make_unique<Type>(host, file.alignment())) {
  const std::span<const std::byte> data = file.data();
  buffer_ = std::make_unique<ReadOnlyBuffer>(*type_, data.data(), data.size(), file.path());
  buffer_->set_usage(BufferUsage::weights);
}

MappedWeights::~MappedWeights() = default;

const BufferType& MappedWeights::buffer_type() const noexcept { return *type_; }

void MappedWeights::place(Tensor& tensor, const GgufTensor& stored) {
  buffer_->place_tensor(tensor, stored.offset);
  placed_ += tensor.nbytes();
}

}  // namespace bk
