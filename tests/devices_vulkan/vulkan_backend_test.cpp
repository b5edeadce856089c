// VulkanBackend: asynchronous transfers in stream order, copies, events and compute's refusal
// of unsupported nodes (the kernels themselves: vulkan_kernels_test.cpp and the conformance suite).

#include <gtest/gtest.h>

#include <cstring>

#include "bk/graph.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

constexpr size_t kSize = 1 << 20;

std::vector<uint8_t> contents(PlacedBytes& p) {
  std::vector<uint8_t> out(p.tensor.nbytes());
  p.buffer->get_tensor(p.tensor, out.data(), 0, out.size());
  return out;
}

TEST(VulkanBackend, NameAndDevice) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  EXPECT_EQ(backend->name(), dev->name());
  EXPECT_EQ(&backend->device(), dev);
}

TEST(VulkanBackend, AsyncRoundTrip) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  PlacedBytes a = placed(dev->buffer_type(), kSize, "a");
  const std::vector<uint8_t> in = pattern(kSize, 21);
  backend->set_tensor_async(a.tensor, in.data(), 0, kSize);
  std::vector<uint8_t> out(kSize);
  backend->get_tensor_async(a.tensor, out.data(), 0, kSize);
  backend->synchronize();
  EXPECT_TRUE(in == out);
}

// Work queued behind a copy must see the stream's order: the copy reads a's old contents even
// though a is overwritten (asynchronously) right after it was queued.
TEST(VulkanBackend, AsyncTransfersKeepStreamOrder) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  PlacedBytes a = placed(dev->buffer_type(), kSize, "a");
  PlacedBytes b = placed(dev->buffer_type(), kSize, "b");
  const std::vector<uint8_t> first = pattern(kSize, 22);
  std::vector<uint8_t> second = pattern(kSize, 23);
  a.buffer->set_tensor(a.tensor, first.data(), 0, kSize);
  ASSERT_TRUE(backend->copy_tensor_async(*backend, a.tensor, b.tensor));
  backend->set_tensor_async(a.tensor, second.data(), 0, kSize);
  const std::vector<uint8_t> expect_a = second;
  second.assign(kSize, 0);  // the source may be reused at once
  std::vector<uint8_t> got_b(kSize);
  std::vector<uint8_t> got_a(kSize);
  backend->get_tensor_async(b.tensor, got_b.data(), 0, kSize);
  backend->get_tensor_async(a.tensor, got_a.data(), 100, kSize - 100);
  backend->synchronize();
  EXPECT_TRUE(got_b == first);
  EXPECT_EQ(std::memcmp(got_a.data(), expect_a.data() + 100, kSize - 100), 0);
}

TEST(VulkanBackend, AsyncBoundsErrors) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  PlacedBytes a = placed(dev->buffer_type(), 4096, "a");
  PlacedBytes b = placed(dev->buffer_type(), 4096, "b");
  std::vector<uint8_t> bytes(8192);
  ASSERT_TRUE(backend->copy_tensor_async(*backend, a.tensor, b.tensor));  // stream busy: the async path
  EXPECT_EQ(error_code_of([&] { backend->set_tensor_async(a.tensor, bytes.data(), 4000, 100); }),
            ErrorCode::invalid_argument);
  EXPECT_EQ(error_code_of([&] { backend->get_tensor_async(a.tensor, bytes.data(), 0, 4097); }),
            ErrorCode::invalid_argument);
  PlacedBytes small = placed(dev->buffer_type(), 1024, "small");
  EXPECT_EQ(error_code_of([&] { backend->copy_tensor_async(*backend, a.tensor, small.tensor); }),
            ErrorCode::invalid_argument);
  backend->synchronize();
}

TEST(VulkanBackend, CopyFromHostMemoryAndRefusalOfForeignDeviceMemory) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  Device* cpu = vulkan_registry().find_device("CPU");
  ASSERT_NE(cpu, nullptr);
  auto backend = dev->init_backend();
  auto cpu_backend = cpu->init_backend();
  PlacedBytes c = placed(cpu->buffer_type(), kSize, "c");
  const std::vector<uint8_t> in = pattern(kSize, 24);
  c.buffer->set_tensor(c.tensor, in.data(), 0, kSize);
  PlacedBytes v = placed(dev->buffer_type(), kSize, "v");
  ASSERT_TRUE(backend->copy_tensor_async(*cpu_backend, c.tensor, v.tensor));
  backend->synchronize();
  EXPECT_TRUE(contents(v) == in);
  // A Vulkan buffer is not a destination this backend can fill from another device's memory.
  PlacedBytes back = placed(cpu->buffer_type(), kSize, "back");
  EXPECT_FALSE(backend->copy_tensor_async(*backend, v.tensor, back.tensor));
}

TEST(VulkanBackend, EventsMarkStreamPoints) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto producer = dev->init_backend();
  auto consumer = dev->init_backend();
  auto event = dev->create_event();
  EXPECT_EQ(&event->device(), dev);
  event->synchronize();  // never recorded: already reached
  PlacedBytes a = placed(dev->buffer_type(), kSize, "a");
  PlacedBytes b = placed(dev->buffer_type(), kSize, "b");
  PlacedBytes c = placed(dev->buffer_type(), kSize, "c");
  const std::vector<uint8_t> in = pattern(kSize, 25);
  a.buffer->set_tensor(a.tensor, in.data(), 0, kSize);
  ASSERT_TRUE(producer->copy_tensor_async(*producer, a.tensor, b.tensor));
  event->record(*producer);
  consumer->wait(*event);  // on the device: the consumer's copy runs after the producer's
  ASSERT_TRUE(consumer->copy_tensor_async(*consumer, b.tensor, c.tensor));
  consumer->synchronize();
  EXPECT_TRUE(contents(c) == in);
  event->synchronize();
  EXPECT_TRUE(contents(b) == in);
}

TEST(VulkanBackend, EventRefusesOtherDevicesBackends) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  Device* cpu = vulkan_registry().find_device("CPU");
  ASSERT_NE(cpu, nullptr);
  auto cpu_backend = cpu->init_backend();
  auto event = dev->create_event();
  EXPECT_EQ(error_code_of([&] { event->record(*cpu_backend); }), ErrorCode::invalid_argument);
}

TEST(VulkanBackend, ComputePassesLeafsAndViews) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {8, 4, 1, 1}, "x");
  Tensor& v = b.view_node(Op::reshape, x, {32, 1, 1, 1}, packed_strides(DType::F32, {32, 1, 1, 1}), 0);
  Graph g = b.build({&v});
  EXPECT_NO_THROW(backend->compute(g));
}

TEST(VulkanBackend, ComputeRefusesUnsupportedNodesWithTheReason) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  GraphBuilder b;
  Tensor& x = b.input(DType::I32, {8, 4, 1, 1}, "x");
  Tensor& sum = b.node(Op::add, DType::I32, {8, 4, 1, 1}, {&x, &x});
  sum.name = "sum";
  Graph g = b.build({&sum});
  std::string message;
  EXPECT_EQ(error_code_of([&] { backend->compute(g); }, &message), ErrorCode::unsupported);
  EXPECT_NE(message.find(dev->name() + " cannot compute node 'sum': "), std::string::npos) << message;
  EXPECT_NE(message.find("no add kernel"), std::string::npos) << message;
}

}  // namespace
}  // namespace bk::test
