// SPDX-License-Identifier: MIT
// Host memory: the device's host buffer type (caps().host_buffer) and buffers that wrap the
// caller's memory (caps().buffer_from_host_ptr). Without the capability there is no host buffer
// type, and wrapping is refused with Error(unsupported) naming the device.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "contract_util.h"
#include "contracts.h"

namespace bk::contract {
namespace {

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};
using HostMemory = std::unique_ptr<uint8_t, FreeDeleter>;

HostMemory aligned_memory(size_t align, size_t size) {
  const size_t a = std::max(align, alignof(std::max_align_t));
  return HostMemory(static_cast<uint8_t*>(std::aligned_alloc(a, round_up(size, a))));
}

}  // namespace

// A host buffer type is host memory the CPU addresses through base() and Tensor::data.
void host_buffer(Device& device) {
  BufferType* host = device.host_buffer_type();
  if (!device.caps().host_buffer) {
    EXPECT_EQ(host, nullptr) << "host_buffer_type() without caps().host_buffer";
    return;
  }
  ASSERT_NE(host, nullptr) << "caps().host_buffer but no host_buffer_type()";
  EXPECT_TRUE(host->is_host());
  EXPECT_EQ(&host->device(), &device);
  EXPECT_NE(host, &device.buffer_type());
  const size_t n = 2 * kMiB + 64;
  Placed p = placed(*host, n, "pinned");
  Buffer& buffer = *p.buffer;
  EXPECT_TRUE(is_aligned(buffer.base(), host->alignment()));
  const std::vector<uint8_t> in = pattern(n, 41);
  buffer.write(0, in.data(), n);
  EXPECT_EQ(std::memcmp(buffer.base(), in.data(), n), 0) << "writes land at base()";
  EXPECT_EQ(p.tensor.data, buffer.base());
  std::memset(buffer.base(), 0xab, 4096);
  EXPECT_TRUE(bytes_of(buffer, 0, 4096) == std::vector<uint8_t>(4096, 0xab))
      << "reads see what the CPU stored";
  EXPECT_EQ(host->alloc(0)->size(), 0u);
  if (host->max_size() != SIZE_MAX) {
    expect_error([&] { host->alloc(host->max_size() + 1); }, ErrorCode::invalid_argument,
                 "host alloc(max_size() + 1)");
  }
  // Transfers between the device's memory and its host buffers, where the device does them.
  Placed dev = placed(device.buffer_type(), n, "device");
  if (dev.buffer->copy_tensor(p.tensor, dev.tensor)) {
    EXPECT_TRUE(contents(dev.tensor) == contents(p.tensor)) << "host buffer -> device";
  }
  dev.buffer->set_tensor(dev.tensor, in.data(), 0, n);
  if (buffer.copy_tensor(dev.tensor, p.tensor)) {
    EXPECT_EQ(std::memcmp(buffer.base(), in.data(), n), 0) << "device -> host buffer";
  }
}

// buffer_from_host_ptr wraps aligned caller memory without copying or owning it: writes through
// either side are visible on the other; null and misaligned pointers are invalid arguments.
void buffer_from_host_ptr(Device& device) {
  const size_t align = device.buffer_type().alignment();
  const size_t n = 4096;
  HostMemory mem = aligned_memory(align, n + align);
  ASSERT_NE(mem, nullptr);
  if (!device.caps().buffer_from_host_ptr) {
    expect_error([&] { device.buffer_from_host_ptr(mem.get(), n); }, ErrorCode::unsupported,
                 "buffer_from_host_ptr without caps().buffer_from_host_ptr", {device.name()});
    return;
  }
  auto buffer = device.buffer_from_host_ptr(mem.get(), n);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(buffer->base(), mem.get());
  EXPECT_EQ(buffer->size(), n);
  buffer->clear(0x3c);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(mem.get()[i], 0x3c) << "byte " << i << " of the caller's memory";
  const std::vector<uint8_t> in = pattern(n, 42);
  std::memcpy(mem.get(), in.data(), n);
  EXPECT_TRUE(bytes_of(*buffer, 0, n) == in) << "the buffer reads the caller's memory, not a copy";
  Tensor t = bytes_tensor(256, "wrapped");
  buffer->place_tensor(t, round_up(1024, align));
  const std::vector<uint8_t> part = pattern(256, 43);
  buffer->set_tensor(t, part.data(), 0, part.size());
  EXPECT_EQ(std::memcmp(mem.get() + round_up(1024, align), part.data(), part.size()), 0);
  buffer.reset();  // must not free the caller's memory: ASan reports the double free below
  EXPECT_EQ(mem.get()[0], in[0]);

  expect_error([&] { device.buffer_from_host_ptr(nullptr, n); }, ErrorCode::invalid_argument,
               "buffer_from_host_ptr(nullptr)", {device.name()});
  if (align > 1) {
    expect_error([&] { device.buffer_from_host_ptr(mem.get() + 1, n); }, ErrorCode::invalid_argument,
                 "buffer_from_host_ptr of a pointer 1 byte past an aligned one", {device.name()});
  }
}

}  // namespace bk::contract
