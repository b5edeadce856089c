// SPDX-License-Identifier: MIT
#include "devices/cpu/threadpool.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bk/error.h"
#include "devices/cpu/cpu_load.h"

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

// Inside a Polling scope threads poll between jobs instead of sleeping; every job still runs
// each task once, a failing task still reaches the caller, and the scope can open again.
TEST(ThreadPool, PollingScopeKeepsEveryJobExact) {
  ThreadPool pool(3);
  for (int scope = 0; scope < 3; ++scope) {
    ThreadPool::Polling polling(pool);
    std::atomic<int64_t> sum{0};
    for (int job = 0; job < 500; ++job) pool.run(7, [&](int64_t i, int) { sum.fetch_add(i + 1); });
    EXPECT_EQ(sum.load(), 500 * 28);
    EXPECT_THROW(pool.run(50,
                          [](int64_t i, int) {
                            if (i == 3) throw std::runtime_error("task 3");
                          }),
                 std::runtime_error);
  }
}

// Once the scope ends the workers go back to sleep: the process uses next to no CPU while the
// pool is idle (the polling is bounded to 100 us after the last job).
TEST(ThreadPool, IdlePoolAfterPollingUsesNoCpu) {
  ThreadPool pool(2);
  {
    ThreadPool::Polling polling(pool);
    for (int job = 0; job < 100; ++job) pool.run(4, [](int64_t, int) {});
  }
  const auto cpu_seconds = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  };
  const double before = cpu_seconds();
  // The measuring window, not a synchronisation: nothing is waited for.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(cpu_seconds() - before, 0.05) << "the idle pool kept polling";
}

// Busy threads, more than the process's CPUs, each spinning until released; the constructor
// returns once all of them run.
class SaturatedCpus {
 public:
  SaturatedCpus() {
    const int cpus = cpu_usable_cpus();
    for (int i = 0; i <= cpus; ++i) {
      threads_.emplace_back([this] {
        started_.fetch_add(1);
        while (!release_.load(std::memory_order_relaxed)) {
        }
      });
    }
    while (started_.load() < static_cast<int>(threads_.size())) std::this_thread::yield();
  }
  ~SaturatedCpus() {
    release_.store(true);
    for (std::thread& t : threads_) t.join();
  }
  SaturatedCpus(const SaturatedCpus&) = delete;
  SaturatedCpus& operator=(const SaturatedCpus&) = delete;

 private:
  std::vector<std::thread> threads_;
  std::atomic<int> started_{0};
  std::atomic<bool> release_{false};
};

// With more threads running than the process has CPUs, there is no core to spare, and a pool
// that opens a Polling scope sleeps between jobs instead of taking a share of a busy core.
TEST(ThreadPool, DoesNotPollWhenEveryCoreIsBusy) {
  ThreadPool pool(2);
  const SaturatedCpus busy;
  EXPECT_FALSE(cpu_cores_free_for(1));
  ThreadPool::Polling polling(pool);
  EXPECT_FALSE(pool.polling());
  std::atomic<int64_t> sum{0};
  for (int job = 0; job < 50; ++job) pool.run(4, [&](int64_t i, int) { sum.fetch_add(i + 1); });
  EXPECT_EQ(sum.load(), 50 * 10);
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
