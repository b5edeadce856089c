// VulkanEvent with timing: timestamps written into the stream measure what the device spent
// between two points, never more than the host saw, and refuse to measure what was not recorded.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "vulkan_test_util.h"

namespace bk::test {
namespace {

constexpr size_t kCopyBytes = size_t{32} << 20;

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

TEST(VulkanEventTiming, MeasuresTheWorkBetweenTwoPoints) {
  Device* dev = timing_device();
  if (dev == nullptr) GTEST_SKIP() << "no Vulkan device with timestamps: " << vulkan_status();
  auto backend = dev->init_backend();
  auto start = dev->create_timing_event();
  auto stop = dev->create_timing_event();
  PlacedBytes a = placed(dev->buffer_type(), kCopyBytes, "a");
  PlacedBytes b = placed(dev->buffer_type(), kCopyBytes, "b");

  const double t0 = host_seconds();
  start->record(*backend);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(backend->copy_tensor_async(*backend, a.tensor, b.tensor));
  stop->record(*backend);
  stop->synchronize();
  const double host = host_seconds() - t0;
  const double copies = stop->seconds_since(*start);

  // The shortest of a few empty intervals: one descheduled queue thread must not fail the test.
  double nothing = copies;
  for (int i = 0; i < 5; ++i) {
    start->record(*backend);
    stop->record(*backend);
    stop->synchronize();
    const double empty = stop->seconds_since(*start);
    EXPECT_GE(empty, 0.0);
    nothing = std::min(nothing, empty);
  }

  EXPECT_GT(copies, 0.0);
  EXPECT_LE(copies, host * 1.01 + 1e-4) << "device time cannot exceed the host time around it";
  EXPECT_LT(nothing, copies / 4) << "nothing between two points took longer than four 32 MiB copies";
}

TEST(VulkanEventTiming, RefusesWhatItCannotMeasure) {
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

  auto plain = dev->create_event();
  plain->record(*backend);
  plain->synchronize();
  EXPECT_EQ(error_code_of([&] { plain->seconds_since(*stop); }), ErrorCode::unsupported);
  EXPECT_EQ(error_code_of([&] { stop->seconds_since(*plain); }), ErrorCode::invalid_argument);
}

TEST(VulkanEventTiming, TheCpuHasNoTimingEvents) {
  Device* cpu = vulkan_registry().find_device("CPU");
  ASSERT_NE(cpu, nullptr);
  EXPECT_FALSE(cpu->caps().event_timing);
  std::string message;
  EXPECT_EQ(error_code_of([&] { cpu->create_timing_event(); }, &message), ErrorCode::unsupported);
  EXPECT_NE(message.find("CPU"), std::string::npos) << message;
}

}  // namespace
}  // namespace bk::test
