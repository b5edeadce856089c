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

// The median's 95% interval: for 100 samples the 40th and 61st values (the textbook ranks),
// below 6 samples the whole range, and it narrows as samples accumulate.
TEST(Stats, MedianIntervalFromOrderStatistics) {
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);  // unsorted on purpose
  const SampleStats s100 = summarize(hundred);
  EXPECT_DOUBLE_EQ(s100.median_low, 40);
  EXPECT_DOUBLE_EQ(s100.median_high, 61);
  EXPECT_NEAR(median_spread(s100), 10.5 / 50.5, 1e-12);

  const SampleStats s5 = summarize(std::vector<double>{3, 1, 2, 5, 4});
  EXPECT_DOUBLE_EQ(s5.median_low, 1);
  EXPECT_DOUBLE_EQ(s5.median_high, 5);

  std::vector<double> many;
  for (int i = 0; i < 10000; ++i) many.push_back(i % 100);
  const SampleStats s10k = summarize(many);
  EXPECT_LT(median_spread(s10k), median_spread(s100) / 5);
  EXPECT_LE(s10k.median_low, s10k.median);
  EXPECT_GE(s10k.median_high, s10k.median);
  EXPECT_EQ(median_spread(summarize(std::vector<double>{0, 0, 0})), 0);
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
