// SPDX-License-Identifier: MIT
#include "devices/cpu/kernels/context.h"

namespace bk {

int64_t task_count(int64_t units, int64_t unit_elements, int threads) noexcept {
  // Below ~32K elements waking the workers costs more than the work itself.
  constexpr int64_t kMinParallelElements = 32 * 1024;
  constexpr int64_t kTasksPerThread = 4;
  if (units <= 1 || units * unit_elements < kMinParallelElements) return units > 0 ? 1 : 0;
  // Several tasks even for one thread: the abort callback is asked between tasks.
  const int64_t wanted = static_cast<int64_t>(threads < 1 ? 1 : threads) * kTasksPerThread;
  return units < wanted ? units : wanted;
}

}  // namespace bk
