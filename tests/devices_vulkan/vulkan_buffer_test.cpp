// SPDX-License-Identifier: MIT
// Vulkan buffers beyond the device contracts (tests/devices, which also run on Vulkan0 with
// staging and 16 MiB chunks): chunked allocations and buffers larger than a storage-buffer range,
// copies Vulkan always does, and what its allocation errors say. The same cases run in the
// staging/chunked configuration (BK_VULKAN_FORCE_STAGING=1, BK_VULKAN_MAX_CHUNK=16MiB; see
// CMakeLists.txt).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "bk/units.h"
#include "probe/device_details.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

size_t chunk_size(const Device& dev) {
  nlohmann::json d = device_details(dev);
  return d.at("buffer_chunk_size").get<size_t>();
}

uint64_t storage_range(const Device& dev) {
  nlohmann::json d = device_details(dev);
  return d.at("limits").at("max_storage_buffer_range").get<uint64_t>();
}

// Writes `size` pattern bytes at `offset` and checks they read back.
void expect_round_trip(Buffer& buffer, size_t offset, size_t size, uint32_t seed) {
  const std::vector<uint8_t> in = pattern(size, seed);
  buffer.write(offset, in.data(), size);
  std::vector<uint8_t> out(size, 0);
  buffer.read(offset, out.data(), size);
  EXPECT_TRUE(in == out) << "bytes [" << offset << ", " << offset + size << ") differ in "
                         << buffer.type().name();
}

// The test settings reach the plugin: forced staging and the chunk cap are what describe() says.
TEST(VulkanBuffer, ReportsTransferPathAndChunkSize) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  nlohmann::json d = device_details(*dev);
  const char* staging = std::getenv("BK_VULKAN_FORCE_STAGING");
  if (staging != nullptr && std::string(staging) == "1") {
    EXPECT_EQ(d.at("device_buffer_transfers"), "staging");
  }
  const char* chunk = std::getenv("BK_VULKAN_MAX_CHUNK");
  if (chunk != nullptr) {
    EXPECT_EQ(d.at("buffer_chunk_size").get<size_t>(), parse_size(chunk).value());
  } else {
    EXPECT_LE(d.at("buffer_chunk_size").get<uint64_t>(),
              d.at("limits").at("max_memory_allocation_size").get<uint64_t>());
  }
}

TEST(VulkanBuffer, LargerThanStorageBufferRange) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const uint64_t range = storage_range(*dev);
  if (range > 512 * kMiB)
    GTEST_SKIP() << "maxStorageBufferRange is " << range << " bytes; too large to exceed here";
  const size_t size = std::max<size_t>(256 * kMiB, 2 * range);
  auto buffer = dev->buffer_type().alloc(size);
  expect_round_trip(*buffer, 0, kMiB, 6);
  expect_round_trip(*buffer, range - 4096, 8192, 7);  // across the first range boundary
  expect_round_trip(*buffer, size - kMiB - 5, kMiB + 5, 8);
}

TEST(VulkanBuffer, ChunkedBufferRoundTripsAcrossChunkBoundaries) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const size_t chunk = chunk_size(*dev);
  if (chunk > 256 * kMiB) {
    GTEST_SKIP() << "chunks are " << chunk
                 << " bytes here; devices_vulkan_staging_test runs this with 16 MiB chunks";
  }
  const size_t size = 2 * chunk + chunk / 2 + 12;  // three chunks, the last one short and odd
  auto buffer = dev->buffer_type().alloc(size);
  expect_round_trip(*buffer, 0, size, 9);
  expect_round_trip(*buffer, chunk - 3, 10, 10);
  expect_round_trip(*buffer, chunk / 2, 2 * chunk, 11);  // spans all three chunks
  buffer->fill(chunk - 5, 0x5a, chunk + 11);
  std::vector<uint8_t> out(chunk + 21);
  buffer->read(chunk - 10, out.data(), out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const bool filled = i >= 5 && i < 5 + chunk + 11;
    if (filled) {
      ASSERT_EQ(out[i], 0x5a) << "byte " << i;
    } else {
      ASSERT_NE(out[i], 0x5a) << "byte " << i << " outside the fill changed";
    }
  }
}

TEST(VulkanBuffer, OneGibibyteWithPatternsAcrossIt) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const size_t size = size_t{1} << 30;
  if (dev->memory().free < size + 256 * kMiB) GTEST_SKIP() << "less than 1.25 GiB free on " << dev->name();
  auto buffer = dev->buffer_type().alloc(size);
  for (size_t at = 0; at + 4096 <= size; at += 64 * kMiB + 4096)
    expect_round_trip(*buffer, at, 4096, static_cast<uint32_t>(at));
  expect_round_trip(*buffer, size - 4096, 4096, 12);
}

// Host buffers are filled from device buffers on the device's queue (the contracts accept a
// refusal; Vulkan does not refuse).
TEST(VulkanBuffer, HostBufferCopiesFromDeviceBuffers) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const size_t n = 3 * kMiB;
  auto v = dev->buffer_type().alloc(n);
  Tensor tv = bytes_tensor(n, "v");
  v->place_tensor(tv, 0);
  const std::vector<uint8_t> in = pattern(n, 14);
  v->set_tensor(tv, in.data(), 0, n);
  BufferType* host = dev->host_buffer_type();
  ASSERT_NE(host, nullptr);
  auto h = host->alloc(n);
  Tensor th = bytes_tensor(n, "h");
  h->place_tensor(th, 0);
  ASSERT_TRUE(h->copy_tensor(tv, th));
  EXPECT_EQ(std::memcmp(h->base(), in.data(), n), 0);
}

TEST(VulkanBuffer, CopyFromCpuBufferAndOverlappingCopy) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  Device* cpu = vulkan_registry().find_device("CPU");
  ASSERT_NE(cpu, nullptr);
  const size_t n = 256 * 1024;
  auto c = cpu->buffer_type().alloc(n);
  Tensor tc = bytes_tensor(n, "c");
  c->place_tensor(tc, 0);
  const std::vector<uint8_t> in = pattern(n, 15);
  c->set_tensor(tc, in.data(), 0, n);
  auto v = dev->buffer_type().alloc(2 * n);
  Tensor tv = bytes_tensor(n, "v");
  v->place_tensor(tv, 0);
  ASSERT_TRUE(v->copy_tensor(tc, tv));
  // Overlapping copy inside one buffer: [0, n) -> [n/2, n/2 + n).
  Tensor shifted = bytes_tensor(n, "shifted");
  v->place_tensor(shifted, n / 2);
  ASSERT_TRUE(v->copy_tensor(tv, shifted));
  std::vector<uint8_t> out(n);
  v->get_tensor(shifted, out.data(), 0, n);
  EXPECT_TRUE(in == out);
}

TEST(VulkanBuffer, AbsurdAllocationIsOutOfMemoryNamingTheHeap) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  std::string message;
  EXPECT_EQ(error_code_of([&] { dev->buffer_type().alloc(size_t{1} << 50); }, &message),
            ErrorCode::out_of_memory);
  EXPECT_NE(message.find(dev->name()), std::string::npos) << message;
  EXPECT_NE(message.find("heap"), std::string::npos) << message;
  const size_t total = dev->memory().total;
  EXPECT_EQ(error_code_of([&] { dev->buffer_type().alloc(total + 4096); }), ErrorCode::out_of_memory);
}

}  // namespace
}  // namespace bk::test
