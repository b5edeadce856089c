// SPDX-License-Identifier: MIT
#include "devices/cpu/threadpool.h"

#include <fmt/format.h>

#include <chrono>
#include <system_error>

#include "bk/error.h"
#include "devices/cpu/cpu_load.h"

namespace bk {
namespace {

// How long a thread polls before it sleeps.
constexpr std::chrono::microseconds kSpin{100};
// A pause between two looks at the clock longer than this means the thread was switched out: some
// other thread wanted its core. The looks are a few microseconds apart.
constexpr std::chrono::microseconds kSwitchedOut{250};

void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls done() for up to kSpin while `polling` holds; true once done() does. A poller that finds
// it was switched out turns polling off for every thread of the pool until the scope ends.
template <typename Done>
bool spin_until(std::atomic<bool>& polling, Done done) {
  using Clock = std::chrono::steady_clock;
  auto last = Clock::now();
  const auto until = last + kSpin;
  while (polling.load(std::memory_order_relaxed)) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    const auto now = Clock::now();
    if (now - last > kSwitchedOut) {
      polling.store(false, std::memory_order_relaxed);
      break;
    }
    if (now >= until) break;
    last = now;
  }
  return done();
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads < 1) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("CPU thread pool: thread count must be at least 1, got {}", threads));
  }
  workers_.reserve(static_cast<size_t>(threads - 1));
  try {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_main(i); });
  } catch (const std::system_error& e) {
    {
      std::lock_guard lock(mutex_);
      shutdown_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    throw Error(
        ErrorCode::device_error,
        fmt::format("CPU thread pool: could not start worker thread {} of {}: {}; ask for fewer threads",
                    workers_.size() + 1, threads, e.what()));
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    shutdown_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

ThreadPool::Polling::Polling(ThreadPool& pool) : pool_(pool) {
  if (pool_.workers_.empty()) return;
  pool_.polling_.store(cpu_cores_free_for(pool_.threads()), std::memory_order_relaxed);
}

ThreadPool::Polling::~Polling() { pool_.polling_.store(false, std::memory_order_relaxed); }

bool ThreadPool::run(int64_t n, TaskRef task, const std::function<bool()>* stop) {
  if (n <= 0) return true;
  Job job{&task, n};
  next_task_.store(0, std::memory_order_relaxed);
  cancelled_.store(false, std::memory_order_relaxed);
  error_ = nullptr;
  // A single task, or no workers: run it here without waking anyone.
  const bool inline_only = workers_.empty() || n == 1;
  if (!inline_only) {
    std::lock_guard lock(mutex_);
    job_ = job;
    busy_workers_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  } else {
    job_ = job;
  }
  if (!inline_only) wake_.notify_all();

  work(0, stop);

  if (!inline_only) {
    const auto idle = [this] { return busy_workers_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(polling_, idle)) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, idle);
    }
  }
  job_ = {};
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  return !cancelled_.load(std::memory_order_relaxed) ||
         next_task_.load(std::memory_order_relaxed) >= n;  // cancelled after the last claim: all ran
}

void ThreadPool::work(int thread, const std::function<bool()>* stop) {
  const Job job = job_;
  for (;;) {
    if (cancelled_.load(std::memory_order_relaxed)) return;
    if (stop != nullptr && (*stop)()) {
      cancelled_.store(true, std::memory_order_relaxed);
      return;
    }
    const int64_t i = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.n) return;
    try {
      (*job.task)(i, thread);
    } catch (...) {
      record_error(std::current_exception());
      return;
    }
  }
}

void ThreadPool::record_error(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (!error_) error_ = std::move(error);
  cancelled_.store(true, std::memory_order_relaxed);
}

void ThreadPool::worker_main(int index) {
  uint64_t seen = 0;
  const auto called = [&] {
    return shutdown_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
  };
  for (;;) {
    if (!spin_until(polling_, called)) {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, called);
    }
    if (shutdown_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    work(index, nullptr);
    if (busy_workers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // Under the mutex: the caller, if it went to sleep, checked busy_workers_ under it first.
      std::lock_guard lock(mutex_);
      done_.notify_one();
    }
  }
}

Range split_range(int64_t n, int64_t parts, int64_t part) noexcept {
  const int64_t base = n / parts, extra = n % parts;
  const int64_t begin = part * base + (part < extra ? part : extra);
  return {begin, begin + base + (part < extra ? 1 : 0)};
}

}  // namespace bk
