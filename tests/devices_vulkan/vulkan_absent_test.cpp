// SPDX-License-Identifier: MIT
// Run with VK_DRIVER_FILES pointing at a file that does not exist (see CMakeLists.txt): the
// plugin still loads, the Vulkan reg lists no device and says why, and nothing else breaks.

#include <gtest/gtest.h>

#include "vulkan_test_util.h"

namespace bk::test {
namespace {

TEST(VulkanAbsent, NoDriverMeansZeroDevicesAndAReason) {
  const PluginAttempt* attempt = vulkan_attempt();
  ASSERT_NE(attempt, nullptr);
  EXPECT_EQ(attempt->status, PluginAttempt::Status::loaded) << attempt->reason;
  BackendReg* reg = vulkan_registry().find_reg("Vulkan");
  ASSERT_NE(reg, nullptr);
  EXPECT_TRUE(reg->devices().empty());
  EXPECT_FALSE(reg->status().empty());
  EXPECT_NE(reg->status().find("driver"), std::string::npos) << reg->status();
  EXPECT_EQ(vulkan_registry().find_device("Vulkan0"), nullptr);
  EXPECT_NE(vulkan_registry().find_device("CPU"), nullptr);
}

}  // namespace
}  // namespace bk::test
