// SPDX-License-Identifier: MIT
#include "probe/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "bk/error.h"

namespace bk {
namespace {

TEST(Stats, OddCountMedianIsTheMiddleValue) {
  const std::vector<double> v = {5, 1, 3};
  const SampleStats s = summarize(v);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.cv, 2.0 / 3.0, 1e-12);  // stddev 2 (n-1), mean 3
}

TEST(Stats, EvenCountMedianAveragesTheMiddlePair) {
  const std::vector<double> v = {4, 1, 2, 100};
  EXPECT_DOUBLE_EQ(summarize(v).median, 3);
}

TEST(Stats, OneOutlierMovesTheMeanButNotTheMedian) {
  const std::vector<double> v = {10, 10, 10, 10, 1000};
  const SampleStats s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 10);
  EXPECT_GT(s.mean, 100);
  EXPECT_GT(s.cv, 1);
}

TEST(Stats, OneSampleHasNoVariation) {
  const std::vector<double> v = {7};
  const SampleStats s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.cv, 0);
}

TEST(Stats, EmptyAndNonFiniteSamplesAreRefused) {
  EXPECT_THROW(summarize(std::vector<double>{}), Error);
  const std::vector<double> nan = {1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(summarize(nan), Error);
  const std::vector<double> inf = {std::numeric_limits<double>::infinity()};
  EXPECT_THROW(summarize(inf), Error);
}

}  // namespace
}  // namespace bk
