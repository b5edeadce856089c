// SPDX-License-Identifier: MIT
#pragma once
// BufferType and Buffer: where tensor memory comes from.
//
// A BufferType is owned by its Device and lives as long as the device. alloc() returns a Buffer
// the caller owns; the Buffer must not outlive its BufferType. All public reads and writes are
// bounds-checked here, once, and throw Error(invalid_argument) naming the buffer, the offsets
// and the sizes; device implementations only fill in the protected do_* primitives, which may
// assume valid ranges. Buffers are not thread-safe: one thread (or one Backend stream) at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "bk/api.h"

namespace bk {

class Device;
class Buffer;
struct Tensor;

enum class BufferUsage { any, weights, compute };
BK_API const char* buffer_usage_name(BufferUsage usage) noexcept;

class BK_API BufferType {
 public:
  virtual ~BufferType() = default;

  virtual std::string name() const = 0;
  virtual Device& device() const = 0;
  // Throws Error(out_of_memory) naming the device and size when the memory cannot be had, and
  // Error(invalid_argument) when size exceeds max_size(). A size of 0 gives an empty buffer that
  // still has a non-null base() aligned to alignment(); live buffers never share addresses.
  virtual std::unique_ptr<Buffer> alloc(size_t size) = 0;
  virtual size_t alignment() const = 0;
  virtual size_t max_size() const { return SIZE_MAX; }
  // Bytes a tensor needs in this buffer type (some devices pad); defaults to nbytes().
  virtual size_t alloc_size(const Tensor& tensor) const;
  // Host buffers are directly addressable by the CPU through Tensor::data.
  virtual bool is_host() const = 0;
};

class BK_API Buffer {
 public:
  Buffer(BufferType& type, size_t size) : type_(&type), size_(size) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  BufferType& type() const noexcept { return *type_; }
  size_t size() const noexcept { return size_; }
  // Start of the buffer's address range. Tensor data pointers point into [base, base + size).
  virtual void* base() const = 0;
  BufferUsage usage() const noexcept { return usage_; }
  virtual void set_usage(BufferUsage usage) { usage_ = usage; }

  // Places a tensor at `offset` in this buffer (sets buffer and data); checks it fits and is
  // aligned. Views are placed by their source: init_view() points a view into its source's data.
  void place_tensor(Tensor& tensor, size_t offset);
  static void init_view(Tensor& view);
  // Device hook run after a tensor is placed (e.g. to pad or register it). Default: nothing.
  virtual void init_tensor(Tensor& tensor);

  // Raw byte access, relative to base().
  void write(size_t offset, const void* src, size_t size);
  void read(size_t offset, void* dst, size_t size) const;
  void fill(size_t offset, uint8_t value, size_t size);

  // Tensor access: `offset` and `size` are bytes inside the tensor's nbytes().
  void set_tensor(Tensor& tensor, const void* src, size_t offset, size_t size);
  void get_tensor(const Tensor& tensor, void* dst, size_t offset, size_t size) const;
  void memset_tensor(Tensor& tensor, uint8_t value, size_t offset, size_t size);
  // Copies src (in any buffer) into dst (in this buffer) when both are the same size. Returns
  // false when this buffer cannot read src's buffer directly; the caller then stages through
  // the host.
  bool copy_tensor(const Tensor& src, Tensor& dst);

  void clear(uint8_t value);
  // Forgets device-side state tied to placed tensors (e.g. cached descriptors). Default: none.
  virtual void reset();

  // Offset of the tensor's data from base(); the tensor must live in this buffer.
  size_t offset_of(const Tensor& tensor) const;

 protected:
  virtual void do_write(size_t offset, const void* src, size_t size) = 0;
  virtual void do_read(size_t offset, void* dst, size_t size) const = 0;
  virtual void do_fill(size_t offset, uint8_t value, size_t size) = 0;
  // Copy from another buffer when this device can read it directly. Default: cannot.
  virtual bool do_copy_from(const Buffer& src, size_t src_offset, size_t dst_offset, size_t size);

 private:
  void check_range(const char* what, size_t offset, size_t size) const;
  void check_tensor_range(const char* what, const Tensor& tensor, size_t offset, size_t size) const;

  BufferType* type_;
  size_t size_;
  BufferUsage usage_ = BufferUsage::any;
};

}  // namespace bk
