// SPDX-License-Identifier: MIT
#include "probe/smoke_watchdog.h"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "bk/error.h"

namespace bk {
namespace {

std::atomic<int> g_abandoned{0};

// Shared by the waiting caller and the check's thread, which may outlive the caller's frame.
struct Slot {
  std::mutex mutex;
  std::condition_variable done_changed;
  bool done = false;
  SmokeOutcome outcome;
};

SmokeOutcome error_outcome(std::string message) {
  SmokeOutcome outcome;
  outcome.status = SmokeStatus::error;
  outcome.message = std::move(message);
  return outcome;
}

SmokeOutcome run_catching(const std::function<SmokeOutcome()>& check) {
  try {
    return check();
  } catch (const Error& e) {
    SmokeOutcome outcome = error_outcome(fmt::format("{}: {}", error_code_name(e.code()), e.what()));
    outcome.out_of_memory = e.code() == ErrorCode::out_of_memory;
    return outcome;
  } catch (const std::bad_alloc&) {
    SmokeOutcome outcome = error_outcome("out of host memory");
    outcome.out_of_memory = true;
    return outcome;
  } catch (const std::exception& e) {
    return error_outcome(fmt::format("unexpected error: {}", e.what()));
  }
}

}  // namespace

WatchedOutcome run_with_watchdog(std::function<SmokeOutcome()> check, std::chrono::duration<double> timeout) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto slot = std::make_shared<Slot>();
  std::thread worker([slot, check = std::move(check)] {
    SmokeOutcome outcome = run_catching(check);
    std::lock_guard lock(slot->mutex);
    slot->outcome = std::move(outcome);
    slot->done = true;
    slot->done_changed.notify_all();
  });
  std::unique_lock lock(slot->mutex);
  const bool finished = slot->done_changed.wait_for(lock, timeout, [&] { return slot->done; });
  WatchedOutcome watched;
  if (finished) {
    watched.outcome = std::move(slot->outcome);
    lock.unlock();
    worker.join();
  } else {
    lock.unlock();
    worker.detach();  // see the header: a stuck thread cannot be joined
    g_abandoned.fetch_add(1);
    watched.outcome = error_outcome(
        fmt::format("timed out after {:g} s: the device did not finish the check (hung device or kernel)",
                    timeout.count()));
    watched.outcome.timed_out = true;
  }
  watched.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return watched;
}

bool run_within(std::function<void()> work, std::chrono::duration<double> timeout) {
  auto error = std::make_shared<std::exception_ptr>();
  const WatchedOutcome watched = run_with_watchdog(
      [work = std::move(work), error] {
        try {
          work();
        } catch (...) {
          *error = std::current_exception();
        }
        return SmokeOutcome{};
      },
      timeout);
  if (watched.outcome.timed_out) return false;
  if (*error) std::rethrow_exception(*error);
  return true;
}

int abandoned_checks() noexcept { return g_abandoned.load(); }

}  // namespace bk
