// SPDX-License-Identifier: MIT
// The watchdog that keeps a hung check from hanging `bkctl smoke`.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>

#include "bk/error.h"
#include "probe/smoke_watchdog.h"

namespace bk {
namespace {

TEST(SmokeWatchdog, ReturnsTheOutcomeOfACheckThatFinishes) {
  const WatchedOutcome watched = run_with_watchdog(
      [] {
        SmokeOutcome o;
        o.status = SmokeStatus::fail;
        o.message = "wrong";
        return o;
      },
      std::chrono::seconds(30));
  EXPECT_EQ(watched.outcome.status, SmokeStatus::fail);
  EXPECT_EQ(watched.outcome.message, "wrong");
  EXPECT_FALSE(watched.outcome.timed_out);
}

TEST(SmokeWatchdog, ExceptionsBecomeErrorsWithTheirMessage) {
  const WatchedOutcome bk_error = run_with_watchdog(
      []() -> SmokeOutcome { throw Error(ErrorCode::device_error, "Vulkan0: vkQueueSubmit failed"); },
      std::chrono::seconds(30));
  EXPECT_EQ(bk_error.outcome.status, SmokeStatus::error);
  EXPECT_EQ(bk_error.outcome.message, "device_error: Vulkan0: vkQueueSubmit failed");
  const WatchedOutcome other =
      run_with_watchdog([]() -> SmokeOutcome { throw std::runtime_error("boom"); }, std::chrono::seconds(30));
  EXPECT_EQ(other.outcome.status, SmokeStatus::error);
  EXPECT_NE(other.outcome.message.find("boom"), std::string::npos);
}

TEST(SmokeWatchdog, AbandonsACheckThatDoesNotFinishInTime) {
  // The "hung" check waits for a gate the test opens once the watchdog has given up on it, so the
  // abandoned thread ends before the test does.
  auto gate = std::make_shared<std::promise<void>>();
  auto finished = std::make_shared<std::promise<void>>();
  std::shared_future<void> open = gate->get_future().share();
  std::future<void> done = finished->get_future();
  const int abandoned_before = abandoned_checks();
  const auto start = std::chrono::steady_clock::now();
  const WatchedOutcome watched = run_with_watchdog(
      [open, finished] {
        open.wait();
        finished->set_value();
        return SmokeOutcome{};
      },
      std::chrono::milliseconds(200));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(watched.outcome.timed_out);
  EXPECT_EQ(watched.outcome.status, SmokeStatus::error);
  EXPECT_NE(watched.outcome.message.find("timed out after 0.2 s"), std::string::npos)
      << watched.outcome.message;
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 20.0) << "returns at the deadline, not when the check ends";
  EXPECT_EQ(abandoned_checks(), abandoned_before + 1);
  gate->set_value();
  done.wait();
}

}  // namespace
}  // namespace bk
