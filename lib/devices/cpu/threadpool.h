// SPDX-License-Identifier: MIT
#pragma once
// A persistent pool of worker threads for the CPU backend's kernels.
//
// A pool of `threads` runs jobs on threads - 1 workers plus the thread that calls run(), which
// works too (so a pool of 1 starts no thread at all). A job is n tasks, numbered 0..n-1; each
// task is claimed exactly once, by whichever thread is free (an atomic counter), so uneven tasks
// balance themselves. Threads wait on condition variables, except while a Polling scope is open
// (a graph of several nodes, whose jobs follow each other within microseconds where a wake-up
// through the kernel costs several: docs/performance.md, "The thread pool polls when the cores
// are free"): then the workers between jobs, and the caller waiting for them, first poll for up
// to 100 us. They poll only while nothing else wants the cores: a scope opened while the machine
// has fewer free cores than the pool has threads does not poll, and the first poller that finds
// it was switched out ends polling for the scope. An idle pool costs no CPU.
//
// Threading: one thread at a time may call run() (a Backend is used by one thread at a time);
// the task function runs concurrently on every thread of the pool and must only write memory
// that belongs to its task (or to its thread index). The destructor wakes and joins every
// worker; it must not run while run() is in progress.
//
// Errors: the constructor throws Error(invalid_argument) when threads < 1 and
// Error(device_error) when the OS refuses a thread. A task that throws stops the job: tasks not
// yet claimed are skipped, and run() rethrows the first exception once every thread has left
// the job.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace bk {

// A non-owning reference to a callable void(int64_t task, int thread): no allocation, valid only
// while the callable it was made from lives (for the duration of one run()).
class TaskRef {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TaskRef>>>
  TaskRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): a lambda converts implicitly
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* object, int64_t task, int thread) {
          (*static_cast<std::remove_reference_t<F>*>(object))(task, thread);
        }) {}

  void operator()(int64_t task, int thread) const { call_(object_, task, thread); }

 private:
  void* object_;
  void (*call_)(void*, int64_t, int);
};

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const noexcept { return static_cast<int>(workers_.size()) + 1; }

  // Whether idle threads poll now (a Polling scope is open and has not ended polling).
  bool polling() const noexcept { return polling_.load(std::memory_order_relaxed); }

  // Runs task(i, thread) for every i in [0, n), thread being the index (0 = the caller,
  // 1..threads()-1 the workers) of the thread that runs it. Returns when every claimed task has
  // finished. `stop`, when given, is called on the calling thread only, before each task it
  // claims; once it returns true no further task is claimed and run() returns false (tasks
  // already running finish first). Returns true when all n tasks ran.
  bool run(int64_t n, TaskRef task, const std::function<bool()>* stop = nullptr);

  // While one lives (on the thread that calls run()), idle threads poll before they sleep, if
  // the machine had a core free for every thread of the pool when it opened (cpu_load.h) and
  // until a poller finds it was switched out; when it ends, pollers sleep within microseconds.
  // Not nested.
  class Polling {
   public:
    explicit Polling(ThreadPool& pool);
    ~Polling();
    Polling(const Polling&) = delete;
    Polling& operator=(const Polling&) = delete;

   private:
    ThreadPool& pool_;
  };

 private:
  struct Job {
    TaskRef* task = nullptr;
    int64_t n = 0;
  };

  void worker_main(int index);
  // Claims and runs tasks of the current job until none is left or the job is cancelled.
  void work(int thread, const std::function<bool()>* stop);
  void record_error(std::exception_ptr error);

  std::vector<std::thread> workers_;

  // generation_ and shutdown_ change under mutex_, and a worker's last decrement of
  // busy_workers_ is followed by taking it to notify, so a sleeper cannot miss either; polling
  // reads them without it.
  std::mutex mutex_;
  std::condition_variable wake_;         // a new job, or shutdown
  std::condition_variable done_;         // the last worker left the job
  std::atomic<uint64_t> generation_{0};  // bumped for every job; workers run each generation once
  std::atomic<bool> shutdown_{false};
  std::atomic<int> busy_workers_{0};  // workers that have not yet left the current job
  Job job_;                           // written before generation_ is bumped, read after it is seen
  std::exception_ptr error_;

  std::atomic<bool> polling_{false};
  std::atomic<int64_t> next_task_{0};
  std::atomic<bool> cancelled_{false};
};

// The half-open range [begin, end) of part `part` when [0, n) is cut into `parts` near-equal
// parts (the first n % parts parts are one longer).
struct Range {
  int64_t begin;
  int64_t end;
};
Range split_range(int64_t n, int64_t parts, int64_t part) noexcept;

}  // namespace bk
