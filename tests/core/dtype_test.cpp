// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "bk/dtype.h"

namespace bk {
namespace {

TEST(DType, TraitsAndNames) {
  EXPECT_EQ(dtype_size(DType::F32), 4u);
  EXPECT_EQ(dtype_size(DType::F16), 2u);
  EXPECT_EQ(dtype_size(DType::BF16), 2u);
  EXPECT_EQ(dtype_size(DType::I32), 4u);
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::I32}) {
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  EXPECT_EQ(dtype_from_name("BF16"), DType::BF16);
  EXPECT_FALSE(dtype_from_name("f64").has_value());
  EXPECT_FALSE(dtype_from_name("").has_value());
}

TEST(DType, F16ExactValuesRoundTrip) {
  for (float v : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 0x1p-14f, 0x1p-24f, 1025.0f, 0.099975586f}) {
    EXPECT_EQ(f16_to_f32(f32_to_f16(v)), v) << v;
  }
  EXPECT_TRUE(std::signbit(f16_to_f32(f32_to_f16(-0.0f))));
}

TEST(DType, F16EveryPatternRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(f)))) << h;
    } else {
      EXPECT_EQ(f32_to_f16(f), h) << h;
    }
  }
}

TEST(DType, F16RoundsToNearestEven) {
  // 1 + 2^-11 lies exactly between 1 and the next f16 (1 + 2^-10): ties go to even (1.0).
  EXPECT_EQ(f16_to_f32(f32_to_f16(1.0f + 0x1p-11f)), 1.0f);
  // 1 + 3 * 2^-11 lies between 1 + 2^-10 (odd) and 1 + 2^-9 (even): goes up.
  EXPECT_EQ(f16_to_f32(f32_to_f16(1.0f + 3 * 0x1p-11f)), 1.0f + 0x1p-9f);
  EXPECT_TRUE(std::isinf(f16_to_f32(f32_to_f16(65520.0f))));
  EXPECT_EQ(f16_to_f32(f32_to_f16(65519.0f)), 65504.0f);
  EXPECT_EQ(f16_to_f32(f32_to_f16(0x1p-25f)), 0.0f);             // tie to even zero
  EXPECT_EQ(f16_to_f32(f32_to_f16(0x1p-25f * 1.5f)), 0x1p-24f);  // above the tie
}

TEST(DType, F16RelativeErrorIsBounded) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-60000.0f, 60000.0f);
  for (int i = 0; i < 10000; ++i) {
    const float v = dist(rng);
    if (std::fabs(v) < 0x1p-14f) continue;
    EXPECT_LE(std::fabs(f16_to_f32(f32_to_f16(v)) - v), std::fabs(v) * 0x1p-11f) << v;
  }
}

TEST(DType, BF16RoundTripAndRounding) {
  for (float v : {0.0f, 1.0f, -3.0f, 0x1p100f, -0x1p-100f}) EXPECT_EQ(bf16_to_f32(f32_to_bf16(v)), v);
  EXPECT_EQ(bf16_to_f32(f32_to_bf16(1.0f + 0x1p-8f)), 1.0f);                // tie to even
  EXPECT_EQ(bf16_to_f32(f32_to_bf16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);  // tie up to even
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::infinity()))));
}

TEST(DType, ConvertBetweenTypes) {
  const float src[4] = {1.5f, -2.0f, 3.25f, 1e9f};
  uint16_t half[4];
  int32_t ints[4];
  float back[4];
  convert(DType::F32, src, DType::F16, half, 4);
  convert(DType::F16, half, DType::F32, back, 3);
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[1], -2.0f);
  EXPECT_EQ(back[2], 3.25f);
  EXPECT_TRUE(std::isinf(f16_to_f32(half[3])));
  convert(DType::F32, src, DType::I32, ints, 4);
  EXPECT_EQ(ints[0], 2);  // lrint: round half to even
  EXPECT_EQ(ints[1], -2);
  EXPECT_EQ(ints[2], 3);
  EXPECT_EQ(ints[3], 1000000000);
  EXPECT_DOUBLE_EQ(load_as_double(DType::I32, &ints[3]), 1e9);
}

}  // namespace
}  // namespace bk
