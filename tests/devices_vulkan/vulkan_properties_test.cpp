// SPDX-License-Identifier: MIT
// The plugin's formatting of what the driver reports, from its implementation library.
#include <gtest/gtest.h>

#include "devices/vulkan/vk_properties.h"

namespace bk {
namespace {

constexpr uint32_t kNvidia = 0x10de;

uint32_t nvidia_version(uint32_t major, uint32_t minor, uint32_t secondary, uint32_t tertiary) {
  return major << 22 | minor << 14 | secondary << 6 | tertiary;
}

TEST(VulkanProperties, NvidiaDriverVersionReadsAsNvidiaSmiWritesIt) {
  EXPECT_EQ(vulkan_driver_version_string(kNvidia, nvidia_version(580, 159, 4, 0)), "580.159.04");
  EXPECT_EQ(vulkan_driver_version_string(kNvidia, nvidia_version(535, 104, 12, 3)), "535.104.12.3");
}

TEST(VulkanProperties, OtherDriversUseTheVulkanVersionEncoding) {
  EXPECT_EQ(vulkan_driver_version_string(0x1002, VK_MAKE_API_VERSION(0, 2, 0, 279)), "2.0.279");
}

}  // namespace
}  // namespace bk
