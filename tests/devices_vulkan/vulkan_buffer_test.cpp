// Vulkan buffers: round trips through mappings or staging, chunked allocations, fills, copies,
// bounds and allocation errors. The same cases run in the staging/chunked configuration
// (BK_VULKAN_FORCE_STAGING=1, BK_VULKAN_MAX_CHUNK=16MiB; see CMakeLists.txt).

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

TEST(VulkanBuffer, DeviceRoundTripAtOddOffsets) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto buffer = dev->buffer_type().alloc(3 * kMiB + 123);
  ASSERT_EQ(buffer->size(), 3 * kMiB + 123);
  EXPECT_NE(buffer->base(), nullptr);
  expect_round_trip(*buffer, 0, buffer->size(), 1);
  expect_round_trip(*buffer, 7, 1001, 2);
  expect_round_trip(*buffer, buffer->size() - 3, 3, 3);
}

TEST(VulkanBuffer, DeviceBuffersHaveDistinctOpaqueAddresses) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto a = dev->buffer_type().alloc(kMiB);
  auto b = dev->buffer_type().alloc(kMiB);
  const auto* pa = static_cast<const uint8_t*>(a->base());
  const auto* pb = static_cast<const uint8_t*>(b->base());
  EXPECT_TRUE(pa + kMiB <= pb || pb + kMiB <= pa);
}

TEST(VulkanBuffer, HostBufferIsRealHostMemory) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  BufferType* host = dev->host_buffer_type();
  ASSERT_NE(host, nullptr);
  auto buffer = host->alloc(2 * kMiB + 64);
  expect_round_trip(*buffer, 0, buffer->size(), 4);
  // is_host: the CPU reads what the buffer holds through base().
  const std::vector<uint8_t> in = pattern(4096, 5);
  buffer->write(100, in.data(), in.size());
  EXPECT_EQ(std::memcmp(static_cast<const uint8_t*>(buffer->base()) + 100, in.data(), in.size()), 0);
  std::memset(buffer->base(), 0xab, 16);
  std::vector<uint8_t> out(16);
  buffer->read(0, out.data(), 16);
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](uint8_t b) { return b == 0xab; }));
}

TEST(VulkanBuffer, HostBufferLargerThanOneAllocationIsRefused) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  BufferType* host = dev->host_buffer_type();
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(error_code_of([&] { host->alloc(host->max_size() + 1); }), ErrorCode::invalid_argument);
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

TEST(VulkanBuffer, FillAndClear) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto buffer = dev->buffer_type().alloc(10000);
  buffer->clear(0x11);
  buffer->fill(3, 0x22, 9990);
  std::vector<uint8_t> out(10000);
  buffer->read(0, out.data(), out.size());
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], (i >= 3 && i < 9993) ? 0x22 : 0x11) << "byte " << i;
}

TEST(VulkanBuffer, BoundsErrorsAreErrors) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto buffer = dev->buffer_type().alloc(4096);
  std::vector<uint8_t> bytes(8192);
  std::string message;
  EXPECT_EQ(error_code_of([&] { buffer->write(4000, bytes.data(), 200); }, &message),
            ErrorCode::invalid_argument);
  EXPECT_NE(message.find(dev->name()), std::string::npos) << message;
  EXPECT_EQ(error_code_of([&] { buffer->read(0, bytes.data(), 4097); }), ErrorCode::invalid_argument);
  EXPECT_EQ(error_code_of([&] { buffer->fill(4097, 0, 1); }), ErrorCode::invalid_argument);
  Tensor t = bytes_tensor(1024, "t");
  buffer->place_tensor(t, 2048);
  EXPECT_EQ(error_code_of([&] { buffer->set_tensor(t, bytes.data(), 1000, 100); }),
            ErrorCode::invalid_argument);
  Tensor big = bytes_tensor(4096, "big");
  EXPECT_EQ(error_code_of([&] { buffer->place_tensor(big, 64); }), ErrorCode::invalid_argument);
}

TEST(VulkanBuffer, TensorAccessUsesTheTensorsPlace) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto buffer = dev->buffer_type().alloc(64 * 1024);
  Tensor t = bytes_tensor(4096, "t");
  buffer->place_tensor(t, 8192);
  EXPECT_EQ(buffer->offset_of(t), 8192u);
  const std::vector<uint8_t> in = pattern(4096, 13);
  buffer->set_tensor(t, in.data(), 0, in.size());
  std::vector<uint8_t> out(4096);
  buffer->read(8192, out.data(), out.size());
  EXPECT_TRUE(in == out);
  buffer->memset_tensor(t, 0, 100, 10);
  buffer->get_tensor(t, out.data(), 0, out.size());
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], (i >= 100 && i < 110) ? 0 : in[i]) << "byte " << i;
}

TEST(VulkanBuffer, CopyBetweenBuffersOfTheDevice) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const size_t n = 3 * kMiB;
  auto a = dev->buffer_type().alloc(n + 4096);
  auto b = dev->buffer_type().alloc(n + 8192);
  Tensor ta = bytes_tensor(n, "a");
  Tensor tb = bytes_tensor(n, "b");
  a->place_tensor(ta, 4096);
  b->place_tensor(tb, 64);
  const std::vector<uint8_t> in = pattern(n, 14);
  a->set_tensor(ta, in.data(), 0, n);
  ASSERT_TRUE(b->copy_tensor(ta, tb));
  std::vector<uint8_t> out(n);
  b->get_tensor(tb, out.data(), 0, n);
  EXPECT_TRUE(in == out);
  // Into and out of the host buffer type, on the device's queue as well.
  BufferType* host = dev->host_buffer_type();
  ASSERT_NE(host, nullptr);
  auto h = host->alloc(n);
  Tensor th = bytes_tensor(n, "h");
  h->place_tensor(th, 0);
  ASSERT_TRUE(h->copy_tensor(tb, th));
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

TEST(VulkanBuffer, AbsurdAllocationIsOutOfMemory) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  std::string message;
  EXPECT_EQ(error_code_of([&] { dev->buffer_type().alloc(size_t{1} << 50); }, &message),
            ErrorCode::out_of_memory);
  EXPECT_NE(message.find(dev->name()), std::string::npos) << message;
  EXPECT_NE(message.find("heap"), std::string::npos) << message;
  const size_t total = dev->memory().total;
  EXPECT_EQ(error_code_of([&] { dev->buffer_type().alloc(total + 4096); }), ErrorCode::out_of_memory);
  // The device still works afterwards.
  auto ok = dev->buffer_type().alloc(kMiB);
  expect_round_trip(*ok, 0, kMiB, 16);
}

TEST(VulkanBuffer, EmptyBuffer) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto buffer = dev->buffer_type().alloc(0);
  EXPECT_EQ(buffer->size(), 0u);
  EXPECT_NE(buffer->base(), nullptr);
  buffer->clear(0);
  EXPECT_EQ(error_code_of([&] { buffer->fill(0, 0, 1); }), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace bk::test
