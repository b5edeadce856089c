// SPDX-License-Identifier: MIT
// VulkanBackend beyond the device contracts (tests/devices: stream order, copies, events, bounds,
// refusals): what Vulkan promises more, and what its refusals say (the kernels themselves:
// vulkan_kernels_test.cpp and the conformance suite).

#include <gtest/gtest.h>

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

// set_tensor_async copies its source before it returns: the caller may reuse the memory at once
// (the contracts ask only that it stays valid until synchronize()).
TEST(VulkanBackend, AsyncSetMayReuseItsSourceAtOnce) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  PlacedBytes a = placed(dev->buffer_type(), kSize, "a");
  PlacedBytes b = placed(dev->buffer_type(), kSize, "b");
  ASSERT_TRUE(backend->copy_tensor_async(*backend, b.tensor, a.tensor));  // stream busy: the async path
  std::vector<uint8_t> source = pattern(kSize, 23);
  const std::vector<uint8_t> expected = source;
  backend->set_tensor_async(a.tensor, source.data(), 0, kSize);
  source.assign(kSize, 0);
  backend->synchronize();
  EXPECT_TRUE(contents(a) == expected);
}

// The stream fills only its own device's memory: a copy into another device's is refused.
TEST(VulkanBackend, CopyIntoAnotherDevicesMemoryIsRefused) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  Device* cpu = vulkan_registry().find_device("CPU");
  ASSERT_NE(cpu, nullptr);
  auto backend = dev->init_backend();
  PlacedBytes v = placed(dev->buffer_type(), kSize, "v");
  PlacedBytes back = placed(cpu->buffer_type(), kSize, "back");
  EXPECT_FALSE(backend->copy_tensor_async(*backend, v.tensor, back.tensor));
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
