// SPDX-License-Identifier: MIT
#include "devices/cpu/threadpool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bk/error.h"

namespace bk {
namespace {

TEST(ThreadPool, RejectsZeroThreads) { EXPECT_THROW(ThreadPool(0), Error); }

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    std::vector<std::atomic<int>> hits(1000);
    EXPECT_TRUE(pool.run(1000, [&](int64_t i, int) { hits[static_cast<size_t>(i)].fetch_add(1); }));
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(ThreadPool, IsReusedAcrossManyJobs) {
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  for (int job = 0; job < 200; ++job) pool.run(10, [&](int64_t i, int) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), 200 * 45);
}

TEST(ThreadPool, ThreadIndicesAreInRangeAndWorkersTakePart) {
  ThreadPool pool(2);
  std::mutex m;
  std::set<int> seen;
  // Each task waits until a second thread has joined, so both must take part.
  std::atomic<int> arrived{0};
  pool.run(2, [&](int64_t, int thread) {
    {
      std::lock_guard lock(m);
      seen.insert(thread);
    }
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();
  });
  EXPECT_EQ(seen, (std::set<int>{0, 1}));
}

TEST(ThreadPool, RethrowsTheFirstTaskException) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.run(100,
                        [](int64_t i, int) {
                          if (i == 7) throw std::runtime_error("task 7");
                        }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<int> n{0};
  EXPECT_TRUE(pool.run(5, [&](int64_t, int) { n.fetch_add(1); }));
  EXPECT_EQ(n.load(), 5);
}

TEST(ThreadPool, StopCallbackCancelsUnclaimedTasks) {
  ThreadPool pool(1);
  int ran = 0;
  int asked = 0;
  const std::function<bool()> stop = [&] { return ++asked > 3; };
  EXPECT_FALSE(pool.run(
      10, [&](int64_t, int) { ++ran; }, &stop));
  EXPECT_EQ(ran, 3);
}

TEST(ThreadPool, SplitRangeCoversEverythingOnce) {
  for (int64_t n : {0, 1, 7, 100}) {
    for (int64_t parts : {1, 3, 8}) {
      int64_t next = 0;
      for (int64_t p = 0; p < parts; ++p) {
        const Range r = split_range(n, parts, p);
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.end - r.begin, n / parts + 1);
        next = r.end;
      }
      EXPECT_EQ(next, n);
    }
  }
}

}  // namespace
}  // namespace bk
