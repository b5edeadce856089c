// SPDX-License-Identifier: MIT
#include "devices/cpu/cpu_load.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>

namespace bk {
namespace {

// Threads runnable on the machine now, the caller included (the R of /proc/loadavg's "R/T"
// field); -1 when it cannot be read.
int runnable_threads() noexcept {
  const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[128] = {};
  const ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (got <= 0) return -1;
  double avg[3];
  int runnable = 0, total = 0;
  if (std::sscanf(text, "%lf %lf %lf %d/%d", &avg[0], &avg[1], &avg[2], &runnable, &total) != 5) return -1;
  return runnable;
}

}  // namespace

int cpu_usable_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

bool cpu_cores_free_for(int threads) noexcept {
  const int runnable = runnable_threads();
  if (runnable < 1) return false;
  return runnable - 1 + threads <= cpu_usable_cpus();
}

}  // namespace bk
