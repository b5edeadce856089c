// SPDX-License-Identifier: MIT
// bkctl smoke's checks on the CPU device: each passes or says why it skips.
#include <gtest/gtest.h>

#include "bk/cpu.h"
#include "probe/smoke_checks.h"

namespace bk {
namespace {

TEST(SmokeChecks, EveryCheckPassesOrSkipsOnTheCpu) {
  Device& cpu = *cpu_reg().devices().front();
  SmokeSettings settings;
  settings.memory_bytes = size_t{1} << 20;
  settings.duration_seconds = 0.05;
  for (const SmokeCheck& check : smoke_checks()) {
    const SmokeOutcome outcome = check.run(cpu, settings);
    EXPECT_TRUE(outcome.status == SmokeStatus::pass || outcome.status == SmokeStatus::skipped)
        << check.name << ": " << outcome.message;
    EXPECT_FALSE(outcome.message.empty()) << check.name;
  }
}

}  // namespace
}  // namespace bk
