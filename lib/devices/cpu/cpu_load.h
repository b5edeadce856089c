// SPDX-License-Identifier: MIT
#pragma once
// Whether this machine has CPUs to spare right now, for a thread pool deciding whether it may
// poll (keep idle threads spinning) instead of sleeping between jobs.
//
// Polling only pays while nothing else wants the cores: a spinning thread takes a share of a CPU
// from any other runnable thread there, in this process or another (MPI ranks on one node, two
// inference processes side by side). cpu_cores_free_for() answers from the kernel's instantaneous
// count of runnable threads (/proc/loadavg), which includes the caller itself.
//
// Threading: safe from any thread. Errors: none; where the count cannot be read it answers false
// (a pool that does not poll is only slower).

namespace bk {

// True when `threads` threads (the caller among them) can run at once beside every other thread
// runnable on the machine now, within the CPUs this process may run on.
bool cpu_cores_free_for(int threads) noexcept;

// The CPUs this process may run on (its affinity mask); 1 when the mask cannot be read.
int cpu_usable_cpus() noexcept;

}  // namespace bk
