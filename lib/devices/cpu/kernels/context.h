// SPDX-License-Identifier: MIT
#pragma once
// What an op kernel runs with: the ISA tier's inner loops, the thread pool, the graph's work
// buffer and the abort callback. Made by CpuBackend::compute() for one graph evaluation.
//
// The work buffer is at least cpu_kernel_work_size(node, ...) bytes for every node of the graph,
// 64-byte aligned; a kernel may use all of it, for one node at a time. Kernels split their work
// with parallel(); a kernel that runs several parallel phases stops after the one in which the
// abort callback fired (aborted() is then true and the node's result is incomplete).

#include <cstddef>
#include <cstdint>
#include <functional>

#include "devices/cpu/kernels/kernel_table.h"
#include "devices/cpu/threadpool.h"

namespace bk {

inline constexpr size_t kWorkAlign = 64;

inline size_t align_up(size_t n, size_t a = kWorkAlign) noexcept { return (n + a - 1) / a * a; }

class KernelContext {
 public:
  KernelContext(const CpuKernels& kernels, ThreadPool& pool, std::byte* work, size_t work_size,
                const std::function<bool()>* abort) noexcept
      : kernels_(&kernels), pool_(&pool), work_(work), work_size_(work_size), abort_(abort) {}

  const CpuKernels& k() const noexcept { return *kernels_; }
  int threads() const noexcept { return pool_->threads(); }
  std::byte* work() const noexcept { return work_; }
  size_t work_size() const noexcept { return work_size_; }
  bool aborted() const noexcept { return aborted_; }

  // Runs task(i, thread) for i in [0, n) on the pool; nothing once aborted.
  void parallel(int64_t n, TaskRef task) {
    if (aborted_) return;
    if (!pool_->run(n, task, abort_)) aborted_ = true;
  }

 private:
  const CpuKernels* kernels_;
  ThreadPool* pool_;
  std::byte* work_;
  size_t work_size_;
  const std::function<bool()>* abort_;
  bool aborted_ = false;
};

// How many tasks to cut `units` units of work into (each `unit_elements` elements): one task
// for small work, so tiny ops never wake the pool, else a few per thread so uneven units balance
// (and the abort callback, asked between tasks, can stop a large node part-way).
int64_t task_count(int64_t units, int64_t unit_elements, int threads) noexcept;

}  // namespace bk
