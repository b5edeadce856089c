// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "bk/error.h"
#include "probe/bench_compare.h"
#include "probe/bench_timer.h"

namespace bk {
namespace {

TEST(BenchTimer, WarmsUpThenStopsAtTheBudgetWithAtLeastMinSamples) {
  int calls = 0;
  // Each "run" claims 1 ms; the budget is wall time, so a zero budget yields one warm-up run
  // (it already took the budget) and min_samples measured ones.
  const Timing t = time_repeated(
      [&] {
        ++calls;
        return 0.001;
      },
      {0.0, 2, 4, 100});
  EXPECT_EQ(t.samples.size(), 4u);
  EXPECT_EQ(calls, 5);
  EXPECT_DOUBLE_EQ(t.stats.median, 0.001);
}

TEST(BenchTimer, AFastTestGetsEveryWarmUpRun) {
  int calls = 0;
  const Timing t = time_repeated(
      [&] {
        ++calls;
        return 1e-6;
      },
      {1000.0, 3, 1, 5});
  EXPECT_EQ(t.samples.size(), 5u);
  EXPECT_EQ(calls, 8);
}

TEST(BenchTimer, MaxSamplesBoundsAFastTest) {
  const Timing t = time_repeated([] { return 1e-9; }, {1000.0, 0, 1, 7});
  EXPECT_EQ(t.samples.size(), 7u);
}

// Past the budget a noisy median keeps measuring until its interval is tight or the overtime is
// spent; a steady one stops at the budget; nothing stops before the budget or min_samples.
TEST(BenchTimer, NoisyMediansGetOvertimeSteadyOnesDoNot) {
  const TimingOptions options{1.0, 0, 3, 1000, 0.03, 1.0};  // within 3%, overtime one budget more
  std::vector<double> noisy, steady;
  for (int i = 0; i < 20; ++i) {
    noisy.push_back(i % 2 == 0 ? 1.0 : 2.0);
    steady.push_back(1.0 + 1e-4 * i);
  }
  EXPECT_FALSE(timing_done(steady, 0.9, options));  // before the budget
  EXPECT_TRUE(timing_done(steady, 1.0, options));
  EXPECT_FALSE(timing_done(noisy, 1.0, options));
  EXPECT_FALSE(timing_done(noisy, 1.9, options));
  EXPECT_TRUE(timing_done(noisy, 2.0, options));                           // the overtime is spent
  EXPECT_FALSE(timing_done(std::vector<double>{1.0, 1.0}, 5.0, options));  // below min_samples
  EXPECT_TRUE(timing_done(std::vector<double>(1000, 1.0), 0.0, options));  // max_samples

  // The same through time_repeated, which reports whether the interval got tight.
  int calls = 0;
  const Timing t = time_repeated([&] { return ++calls % 2 == 0 ? 1.0 : 2.0; }, {0.0, 0, 6, 6});
  EXPECT_EQ(t.samples.size(), 6u);
  EXPECT_FALSE(t.ci_met);
  EXPECT_TRUE(time_repeated([] { return 1.0; }, {0.0, 0, 6, 6}).ci_met);
}

TEST(BenchTimer, ABrokenTimerIsAnErrorNotANumber) {
  EXPECT_THROW(time_repeated([] { return std::numeric_limits<double>::infinity(); }, {0.1, 0, 1, 5}), Error);
  EXPECT_THROW(time_repeated([] { return -1.0; }, {0.1, 0, 1, 5}), Error);
}

TEST(BenchCompare, HalfTheRateIsARegressionAndTheSameIsNot) {
  const Measured base{100, 0.02, 20};
  EXPECT_TRUE(compare_to_baseline(base, {50, 0.02, 20}, 0.1, true).regression);
  EXPECT_FALSE(compare_to_baseline(base, {100, 0.02, 20}, 0.1, true).regression);
  EXPECT_FALSE(compare_to_baseline(base, {95, 0.02, 20}, 0.1, true).regression);
  EXPECT_FALSE(compare_to_baseline(base, {200, 0.02, 20}, 0.1, true).regression);
}

TEST(BenchCompare, LatencyRegressesWhenItGrows) {
  const Measured base{10, 0.01, 50};
  EXPECT_TRUE(compare_to_baseline(base, {20, 0.01, 50}, 0.1, false).regression);
  EXPECT_FALSE(compare_to_baseline(base, {5, 0.01, 50}, 0.1, false).regression);
}

TEST(BenchCompare, NoiseWidensWhatIsAllowed) {
  const Measured base{100, 0.15, 5};
  const Verdict noisy = compare_to_baseline(base, {80, 0.15, 5}, 0.1, true);
  EXPECT_FALSE(noisy.regression);
  EXPECT_TRUE(noisy.inconclusive.empty()) << noisy.inconclusive;
  EXPECT_GT(noisy.allowed, 0.2);
  EXPECT_TRUE(compare_to_baseline({100, 0.01, 50}, {80, 0.01, 50}, 0.1, true).regression);
}

TEST(BenchCompare, TooFewSamplesOrTooMuchSpreadIsNotJudged) {
  const Measured steady{100, 0.01, 50};
  // Half the rate would be a regression, but 4 samples (either side) cannot tell.
  const Verdict few_now = compare_to_baseline(steady, {50, 0.01, 4}, 0.1, true);
  EXPECT_FALSE(few_now.regression);
  EXPECT_EQ(few_now.inconclusive, "now 4 samples, fewer than 5");
  const Verdict few_before = compare_to_baseline({100, 0.01, 3}, {50, 0.01, 50}, 0.1, true);
  EXPECT_FALSE(few_before.regression);
  EXPECT_EQ(few_before.inconclusive, "baseline 3 samples, fewer than 5");
  const Verdict spread = compare_to_baseline(steady, {50, 0.31, 50}, 0.1, true);
  EXPECT_FALSE(spread.regression);
  EXPECT_EQ(spread.inconclusive, "now cv 31%, above 20%");
  // A drop to well under half is a regression however few the samples.
  const Verdict gross = compare_to_baseline(steady, {20, 0.01, 3}, 0.1, true);
  EXPECT_TRUE(gross.regression);
  EXPECT_TRUE(gross.inconclusive.empty());
  // ... even when the unreliable side is noisy: its noise estimate is what cannot be trusted (a
  // baseline of 3 samples at cv 35% once excused an 83% drop).
  EXPECT_TRUE(compare_to_baseline({100, 0.35, 3}, {17, 0.03, 56}, 0.1, true).regression);
  // At the limits it is judged.
  EXPECT_TRUE(
      compare_to_baseline({100, 0.01, kMinCompareSamples}, {50, kMaxCompareCv, 50}, 0.1, true).regression);
}

}  // namespace
}  // namespace bk
