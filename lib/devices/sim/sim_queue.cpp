// SPDX-License-Identifier: MIT
#include "devices/sim/sim_queue.h"

#include <utility>

namespace bk {

SimQueue::SimQueue() : worker_([this] { run(); }) {}

SimQueue::~SimQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

uint64_t SimQueue::submit(std::function<void()> job) {
  uint64_t ticket = 0;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    ticket = ++submitted_;
  }
  changed_.notify_all();
  return ticket;
}

uint64_t SimQueue::submitted() const {
  std::lock_guard lock(mutex_);
  return submitted_;
}

void SimQueue::wait_for(uint64_t ticket) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return completed_ >= ticket; });
}

void SimQueue::drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return completed_ >= submitted_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void SimQueue::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // The destructor stops the worker only once every job ran.
    changed_.wait(lock, [&] { return !jobs_.empty() || stopping_; });
    if (jobs_.empty()) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    ++completed_;
    changed_.notify_all();
  }
}

}  // namespace bk
