// SPDX-License-Identifier: MIT
#pragma once
// SimQueue: the stream of an asynchronous simulated device (BK_SIM_DEVICES async=yes). One worker
// thread runs the submitted jobs in order, so that work really overlaps the caller and every
// ordering the scheduler relies on (events, waits, copies between streams) is exercised.
//
// Tickets count submissions from 1; job t is done once completed() >= t. A job that throws has
// its error kept: the next drain() rethrows the first one (later jobs still run). Thread-safe;
// the destructor waits for every job and drops a pending error. Internal to the sim device.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace bk {

class SimQueue {
 public:
  SimQueue();
  ~SimQueue();
  SimQueue(const SimQueue&) = delete;
  SimQueue& operator=(const SimQueue&) = delete;

  // Returns the job's ticket.
  uint64_t submit(std::function<void()> job);
  uint64_t submitted() const;
  // Blocks until job `ticket` (and every one before it) is done.
  void wait_for(uint64_t ticket);
  // wait_for(submitted()), then rethrows a kept error.
  void drain();

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> jobs_;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::thread worker_;  // last: starts after the state it reads exists
};

}  // namespace bk
