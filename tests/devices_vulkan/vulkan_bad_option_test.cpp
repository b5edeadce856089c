// SPDX-License-Identifier: MIT
// Run with BK_VULKAN_MAX_CHUNK set to something that is not a size (see CMakeLists.txt): the
// plugin fails to load with a reason naming the variable, and the CPU is still there.

#include <gtest/gtest.h>

#include "vulkan_test_util.h"

namespace bk::test {
namespace {

TEST(VulkanBadOption, PluginFailsNamingTheVariable) {
  const PluginAttempt* attempt = vulkan_attempt();
  ASSERT_NE(attempt, nullptr);
  EXPECT_EQ(attempt->status, PluginAttempt::Status::failed);
  EXPECT_NE(attempt->reason.find("BK_VULKAN_MAX_CHUNK"), std::string::npos) << attempt->reason;
  EXPECT_EQ(vulkan_registry().find_reg("Vulkan"), nullptr);
  EXPECT_NE(vulkan_registry().find_device("CPU"), nullptr);
}

}  // namespace
}  // namespace bk::test
