// SPDX-License-Identifier: MIT
// Vulkan0's properties as the registry lists them: what is specific to Vulkan (what every device
// promises is checked by the device contracts, tests/devices).

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "bk/graph.h"
#include "bk/ops.h"
#include "probe/device_details.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

bool pinned_to_lavapipe() {
  const char* files = std::getenv("VK_DRIVER_FILES");
  return files != nullptr && std::string(files).find("lvp_icd") != std::string::npos;
}

TEST(VulkanDevice, PluginLoadsThroughTheRegistry) {
  const PluginAttempt* attempt = vulkan_attempt();
  ASSERT_NE(attempt, nullptr);
  EXPECT_EQ(attempt->status, PluginAttempt::Status::loaded) << attempt->reason;
  ASSERT_NE(vulkan_registry().find_reg("vulkan"), nullptr);
  EXPECT_NE(vulkan_registry().find_device("CPU"), nullptr);
}

TEST(VulkanDevice, NamesFollowEnumerationOrder) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const std::vector<Device*> devices = dev->reg().devices();
  EXPECT_EQ(dev->reg().name(), "Vulkan");
  for (size_t i = 0; i < devices.size(); ++i) EXPECT_EQ(devices[i]->name(), "Vulkan" + std::to_string(i));
  EXPECT_EQ(vulkan_registry().find_device("vulkan0"), dev);
}

// Description, memory and the capabilities' promises are device contracts (tests/devices); these
// are what Vulkan devices declare.
TEST(VulkanDevice, PropertiesAreSane) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  if (pinned_to_lavapipe()) {
    EXPECT_NE(dev->description().find("llvmpipe"), std::string::npos) << dev->description();
    EXPECT_EQ(dev->type(), DeviceType::cpu);
  }
  EXPECT_FALSE(dev->stable_id().empty());
  const DeviceCaps caps = dev->caps();
  EXPECT_TRUE(caps.async);
  EXPECT_TRUE(caps.events);
  EXPECT_TRUE(caps.host_buffer);
  EXPECT_FALSE(caps.buffer_from_host_ptr);
}

TEST(VulkanDevice, DescribeReportsDriverLimitsAndHeaps) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const nlohmann::json d = device_details(*dev);
  EXPECT_TRUE(std::regex_match(d.at("api_version").get<std::string>(), std::regex(R"(\d+\.\d+\.\d+)")));
  EXPECT_TRUE(d.at("device_uuid").is_string() || d.at("pci_bus_id").is_string());
  if (d.at("pci_bus_id").is_string()) {
    EXPECT_TRUE(std::regex_match(d["pci_bus_id"].get<std::string>(),
                                 std::regex(R"([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f])")));
    EXPECT_EQ(dev->stable_id(), d["pci_bus_id"].get<std::string>());
  } else {
    EXPECT_EQ(dev->stable_id(), d["device_uuid"].get<std::string>());
  }
  const auto& limits = d.at("limits");
  EXPECT_GT(limits.at("max_memory_allocation_size").get<uint64_t>(), 0u);
  EXPECT_GT(limits.at("max_storage_buffer_range").get<uint64_t>(), 0u);
  EXPECT_EQ(limits.at("max_compute_work_group_count").size(), 3u);
  EXPECT_EQ(limits.at("max_compute_work_group_size").size(), 3u);
  EXPECT_GT(limits.at("max_compute_work_group_invocations").get<uint64_t>(), 0u);
  EXPECT_GT(limits.at("max_compute_shared_memory_size").get<uint64_t>(), 0u);
  EXPECT_GT(d.at("subgroup_size").get<uint32_t>(), 0u);
  ASSERT_FALSE(d.at("memory_heaps").empty());
  uint64_t local = 0;
  for (const auto& heap : d["memory_heaps"]) {
    EXPECT_GT(heap.at("size").get<uint64_t>(), 0u);
    if (heap.at("device_local").get<bool>()) local += heap["size"].get<uint64_t>();
  }
  EXPECT_EQ(local, dev->memory().total);
  EXPECT_FALSE(d.at("memory_types").empty());
  if (pinned_to_lavapipe()) {
    EXPECT_EQ(d.at("vulkan_device_type"), "cpu");
    EXPECT_EQ(d.at("driver_name"), "llvmpipe");
    EXPECT_EQ(limits["max_storage_buffer_range"].get<uint64_t>(), uint64_t{128} << 20);
  }
}

TEST(VulkanDevice, FreeMemoryFollowsOwnAllocations) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  const nlohmann::json d = device_details(*dev);
  if (d.at("memory_budget_source") == "VK_EXT_memory_budget") {
    GTEST_SKIP() << "the driver reports budgets itself; other processes move them";
  }
  const size_t size = size_t{64} << 20;
  const size_t before = dev->memory().free;
  auto buffer = dev->buffer_type().alloc(size);
  EXPECT_LE(dev->memory().free + size, before);
  buffer.reset();
  EXPECT_EQ(dev->memory().free, before);
}

// That the buffer types exist and keep their promises are device contracts (tests/devices); these
// are Vulkan's names, alignment and what it computes on.
TEST(VulkanDevice, BufferTypes) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  BufferType& device_type = dev->buffer_type();
  EXPECT_EQ(device_type.name(), dev->name());
  EXPECT_FALSE(device_type.is_host());
  EXPECT_GE(device_type.alignment(), 64u);
  BufferType* host = dev->host_buffer_type();
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->name(), dev->name() + "_Host");
  EXPECT_TRUE(dev->supports_buffer_type(*host));
  Device* cpu = vulkan_registry().find_device("CPU");
  ASSERT_NE(cpu, nullptr);
  EXPECT_FALSE(dev->supports_buffer_type(cpu->buffer_type()));
}

TEST(VulkanDevice, SupportsKernelOpsAndExplainsRefusals) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  GraphBuilder b;
  Tensor& x = b.input(DType::F32, {8, 4, 1, 1}, "x");
  Tensor& y = b.input(DType::F32, {8, 4, 1, 1}, "y");
  Tensor& ix = b.input(DType::I32, {8, 4, 1, 1}, "ix");
  Tensor& v = b.view_node(Op::reshape, x, {32, 1, 1, 1}, packed_strides(DType::F32, {32, 1, 1, 1}), 0);
  Tensor& sum = b.node(Op::add, DType::F32, {8, 4, 1, 1}, {&x, &y});
  // Built by hand: the builders would refuse I32 arithmetic, and so does the device.
  Tensor& isum = b.node(Op::add, DType::I32, {8, 4, 1, 1}, {&ix, &ix});
  EXPECT_TRUE(dev->supports_op(x));
  EXPECT_TRUE(dev->supports_op(v));
  EXPECT_TRUE(dev->supports_op(sum));
  EXPECT_TRUE(dev->unsupported_reason(sum).empty());
  EXPECT_FALSE(dev->supports_op(isum));
  EXPECT_NE(dev->unsupported_reason(isum).find("no add kernel for dtypes (i32, i32) -> i32"),
            std::string::npos)
      << dev->unsupported_reason(isum);
  EXPECT_FALSE(dev->offload_op(sum));
}

TEST(VulkanDevice, OnlyGpusAskForBatchedMulMats) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  GraphBuilder b;
  Tensor& w = b.weight(DType::F32, {64, 64, 1, 1}, "w");
  Tensor& batch = ops::mul_mat(b, w, b.input(DType::F32, {64, kOffloadMinRows, 1, 1}, "x"));
  Tensor& token = ops::mul_mat(b, w, b.input(DType::F32, {64, 1, 1, 1}, "t"));
  // A CPU-type device (lavapipe) shares the host's cores: moving the weight buys nothing.
  EXPECT_EQ(dev->offload_op(batch), dev->type() != DeviceType::cpu);
  EXPECT_FALSE(dev->offload_op(token));
}

}  // namespace
}  // namespace bk::test
