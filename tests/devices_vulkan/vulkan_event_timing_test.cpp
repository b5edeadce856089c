// SPDX-License-Identifier: MIT
// VulkanEvent with timing, beyond the device contracts (tests/devices, which check what any
// device's timing events measure and refuse): lavapipe has them, and what a refusal says.

#include <gtest/gtest.h>

#include "vulkan_test_util.h"

namespace bk::test {
namespace {

Device* timing_device() {
  Device* dev = vulkan_device();
  if (dev == nullptr || !dev->caps().event_timing) return nullptr;
  return dev;
}

TEST(VulkanEventTiming, LavapipeWritesTimestamps) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  if (dev->description().find("llvmpipe") == std::string::npos) GTEST_SKIP() << "not lavapipe";
  EXPECT_TRUE(dev->caps().event_timing);
}

// The refusal is a device contract; its message says what was missing.
TEST(VulkanEventTiming, RefusalSaysTheEventWasNeverRecorded) {
  Device* dev = timing_device();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device with timestamps: " << vulkan_status();
  auto backend = dev->init_backend();
  auto start = dev->create_timing_event();
  auto stop = dev->create_timing_event();
  stop->record(*backend);
  stop->synchronize();
  std::string message;
  EXPECT_EQ(error_code_of([&] { stop->seconds_since(*start); }, &message), ErrorCode::invalid_argument);
  EXPECT_NE(message.find("never recorded"), std::string::npos) << message;
}

}  // namespace
}  // namespace bk::test
