// SPDX-License-Identifier: MIT
#include "devices/cpu/threadpool.h"

#include <fmt/format.h>

#include <system_error>

#include "bk/error.h"

namespace bk {

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
    busy_workers_ = static_cast<int>(workers_.size());
    ++generation_;
  } else {
    job_ = job;
  }
  if (!inline_only) wake_.notify_all();

  work(0, stop);

  if (!inline_only) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return busy_workers_ == 0; });
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
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return shutdown_ || generation_ != seen; });
      if (shutdown_) return;
      seen = generation_;
    }
    work(index, nullptr);
    bool last = false;
    {
      std::lock_guard lock(mutex_);
      last = --busy_workers_ == 0;
    }
    if (last) done_.notify_one();
  }
}

Range split_range(int64_t n, int64_t parts, int64_t part) noexcept {
  const int64_t base = n / parts, extra = n % parts;
  const int64_t begin = part * base + (part < extra ? part : extra);
  return {begin, begin + base + (part < extra ? 1 : 0)};
}

}  // namespace bk
