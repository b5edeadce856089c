// SPDX-License-Identifier: MIT
// Backend::run_peak_kernel on Vulkan0: the FLOP count it returns is the exact work of whole
// grid iterations covering the request, F16 follows the device's shaderFloat16, and BF16,
// integer types and bad requests are refused with a reason. Timing is bench's business, not
// checked here.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "probe/device_details.h"
#include "vulkan_test_util.h"

namespace bk::test {
namespace {

// peak_fma.comp: 65536 invocations x 16 rounds x 8 vec4 chains x 2 FLOPs per iteration.
constexpr double kGridIteration = 65536.0 * 1024.0;

bool shader_float16(Device& dev) {
  const nlohmann::json j = device_details(dev);
  return j["shader_float16"].get<bool>();
}

TEST(VulkanPeak, F32ReturnsWholeGridIterationsCoveringTheRequest) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  const double asked = 3.5 * kGridIteration;
  const double done = backend->run_peak_kernel(DType::F32, asked);
  EXPECT_EQ(done, 4 * kGridIteration);
  // A tiny request still runs (and counts) one whole iteration.
  EXPECT_EQ(backend->run_peak_kernel(DType::F32, 1.0), kGridIteration);
}

TEST(VulkanPeak, F16FollowsShaderFloat16) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  if (shader_float16(*dev)) {
    EXPECT_EQ(backend->run_peak_kernel(DType::F16, 2 * kGridIteration), 2 * kGridIteration);
  } else {
    std::string message;
    EXPECT_EQ(error_code_of([&] { backend->run_peak_kernel(DType::F16, 1e6); }, &message),
              ErrorCode::unsupported);
    EXPECT_NE(message.find("shaderFloat16"), std::string::npos) << message;
  }
}

TEST(VulkanPeak, Bf16AndIntegersAreUnsupportedWithAReason) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  std::string message;
  EXPECT_EQ(error_code_of([&] { backend->run_peak_kernel(DType::BF16, 1e6); }, &message),
            ErrorCode::unsupported);
  EXPECT_NE(message.find("BF16"), std::string::npos) << message;
  EXPECT_EQ(error_code_of([&] { backend->run_peak_kernel(DType::I32, 1e6); }, &message),
            ErrorCode::unsupported);
  EXPECT_NE(message.find(dev->name()), std::string::npos) << message;
}

TEST(VulkanPeak, RefusesNonPositiveOrNonFiniteFlops) {
  BK_REQUIRE_VULKAN_DEVICE(dev);
  auto backend = dev->init_backend();
  for (double bad :
       {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(error_code_of([&] { backend->run_peak_kernel(DType::F32, bad); }), ErrorCode::invalid_argument)
        << bad;
  }
}

}  // namespace
}  // namespace bk::test
