// SPDX-License-Identifier: MIT
#include "bk/buffer.h"

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "bk/device.h"
#include "bk/error.h"
#include "bk/tensor.h"

namespace bk {

const char* buffer_usage_name(BufferUsage usage) noexcept {
  switch (usage) {
    case BufferUsage::any:
      return "any";
    case BufferUsage::weights:
      return "weights";
    case BufferUsage::compute:
      return "compute";
  }
  return "any";
}

size_t BufferType::alloc_size(const Tensor& tensor) const { return tensor.nbytes(); }

void Buffer::check_range(const char* what, size_t offset, size_t size) const {
  if (offset > size_ || size > size_ - offset) {
    // An end past SIZE_MAX is named as offset and size, not as a wrapped-around address.
    const std::string range =
        size > SIZE_MAX - offset
            ? fmt::format("{} bytes at offset {} (past the end of the address space)", size, offset)
            : fmt::format("bytes [{}, {})", offset, offset + size);
    throw Error(ErrorCode::invalid_argument,
                fmt::format("{}: {} are outside buffer '{}' of {} bytes on {}", what, range, type_->name(),
                            size_, type_->device().name()));
  }
}

size_t Buffer::offset_of(const Tensor& tensor) const {
  if (tensor.buffer != this || tensor.data == nullptr) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("tensor '{}' does not live in buffer '{}' on {}", tensor.label(), type_->name(),
                            type_->device().name()));
  }
  return static_cast<size_t>(static_cast<const char*>(tensor.data) - static_cast<const char*>(base()));
}

void Buffer::check_tensor_range(const char* what, const Tensor& tensor, size_t offset, size_t size) const {
  const size_t nbytes = tensor.nbytes();
  if (offset > nbytes || size > nbytes - offset) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("{}: bytes [{}, {}) are outside tensor '{}' of {} bytes ({} {})", what, offset,
                    offset + size, tensor.label(), nbytes, dtype_name(tensor.type), tensor.shape_string()));
  }
  check_range(what, offset_of(tensor) + offset, size);
}

void Buffer::place_tensor(Tensor& tensor, size_t offset) {
  if (tensor.is_view()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("tensor '{}' is a view: place its source, then call init_view", tensor.label()));
  }
  const size_t align = type_->alignment();
  if (align != 0 && offset % align != 0) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("tensor '{}' at offset {} is not aligned to {} bytes in '{}' on {}",
                            tensor.label(), offset, align, type_->name(), type_->device().name()));
  }
  check_range("place_tensor", offset, type_->alloc_size(tensor));
  tensor.buffer = this;
  tensor.data = static_cast<char*>(base()) + offset;
  init_tensor(tensor);
}

void Buffer::init_view(Tensor& view) {
  Tensor* src = view.view_src;
  if (src == nullptr || src->buffer == nullptr) {
    throw Error(ErrorCode::invalid_argument, fmt::format("view '{}' has no allocated source", view.label()));
  }
  view.buffer = src->buffer;
  view.data = static_cast<char*>(src->data) + view.view_offset;
  view.buffer->init_tensor(view);
}

void Buffer::init_tensor(Tensor& /*tensor*/) {}

void Buffer::write(size_t offset, const void* src, size_t size) {
  check_range("write", offset, size);
  if (size != 0) do_write(offset, src, size);
}

void Buffer::read(size_t offset, void* dst, size_t size) const {
  check_range("read", offset, size);
  if (size != 0) do_read(offset, dst, size);
}

void Buffer::fill(size_t offset, uint8_t value, size_t size) {
  check_range("fill", offset, size);
  if (size != 0) do_fill(offset, value, size);
}

void Buffer::set_tensor(Tensor& tensor, const void* src, size_t offset, size_t size) {
  check_tensor_range("set_tensor", tensor, offset, size);
  if (size != 0) do_write(offset_of(tensor) + offset, src, size);
}

void Buffer::get_tensor(const Tensor& tensor, void* dst, size_t offset, size_t size) const {
  check_tensor_range("get_tensor", tensor, offset, size);
  if (size != 0) do_read(offset_of(tensor) + offset, dst, size);
}

void Buffer::memset_tensor(Tensor& tensor, uint8_t value, size_t offset, size_t size) {
  check_tensor_range("memset_tensor", tensor, offset, size);
  if (size != 0) do_fill(offset_of(tensor) + offset, value, size);
}

bool Buffer::copy_tensor(const Tensor& src, Tensor& dst) {
  if (src.buffer == nullptr) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("copy_tensor: source '{}' is not allocated", src.label()));
  }
  const size_t n = src.nbytes();
  if (n != dst.nbytes()) {
    throw Error(ErrorCode::invalid_argument, fmt::format("copy_tensor: '{}' has {} bytes but '{}' has {}",
                                                         src.label(), n, dst.label(), dst.nbytes()));
  }
  check_tensor_range("copy_tensor", dst, 0, n);
  if (n == 0) return true;
  return do_copy_from(*src.buffer, src.buffer->offset_of(src), offset_of(dst), n);
}

void Buffer::clear(uint8_t value) {
  if (size_ != 0) do_fill(0, value, size_);
}

void Buffer::reset() {}

bool Buffer::do_copy_from(const Buffer& /*src*/, size_t /*src_offset*/, size_t /*dst_offset*/,
                          size_t /*size*/) {
  return false;
}

}  // namespace bk
