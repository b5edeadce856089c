// SPDX-License-Identifier: MIT
#pragma once
// Runs one smoke check with a deadline, so that a hung device or kernel cannot hang a CI job.
//
// Why a thread and not a child process: a check uses the device through the in-process driver
// (Vulkan, CUDA), and forking a process that has loaded a GPU driver and started threads is not
// safe (the child inherits locks held by threads that do not exist in it); spawning a fresh
// bkctl per check would re-enumerate every device each time and lose the simple in-process
// interfaces. So each check runs on a thread of its own and the caller waits for it with a
// deadline. A thread that is stuck inside a driver cannot be cancelled or joined: on timeout it
// is detached and left blocked ("abandoned"), the check is reported as a timed-out error, and
// the caller must not use that device again and must end the process with std::_Exit once its
// reports are written and flushed (abandoned_checks() > 0), because destructors and atexit
// handlers (the registry's, the driver's) could block on what the stuck thread holds.
//
// Everything the check touches must outlive the thread: the Device (owned by the registry, never
// destroyed before _Exit) and what the callable captures by value.

#include <chrono>
#include <functional>

#include "probe/smoke_checks.h"

namespace bk {

// Runs check() on a new thread and waits at most `timeout`. A bk::Error or other exception is
// an error outcome carrying its message; on timeout the outcome is an error with timed_out set.
// Returns the outcome and its wall seconds.
struct WatchedOutcome {
  SmokeOutcome outcome;
  double seconds = 0;
};
WatchedOutcome run_with_watchdog(std::function<SmokeOutcome()> check, std::chrono::duration<double> timeout);

// The same for any work, as the other commands use it: an exception work() throws is rethrown
// here, in the caller's thread, as it was (a bk::Error keeps its code). Returns false when the
// deadline passed; the thread is then abandoned as above, so work() must own (or share) all it
// uses but the registry's devices.
bool run_within(std::function<void()> work, std::chrono::duration<double> timeout);

// How many checks were abandoned by run_with_watchdog in this process.
int abandoned_checks() noexcept;

}  // namespace bk
