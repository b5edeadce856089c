// SPDX-License-Identifier: MIT
// bkctl smoke's checks on the CPU device: each passes, or says why it does not apply.
#include <gtest/gtest.h>

#include "bk/cpu.h"
#include "probe/smoke_checks.h"

namespace bk {
namespace {

TEST(SmokeChecks, EveryCheckPassesOrDoesNotApplyOnTheCpu) {
  Device& cpu = *cpu_reg().devices().front();
  SmokeSettings settings;
  settings.memory_bytes = size_t{1} << 20;
  settings.duration_seconds = 0.05;
  for (const SmokeCheck& check : smoke_checks()) {
    const SmokeOutcome outcome = check.run(cpu, settings);
    // Only events are n/a on the CPU (it has none); everything else runs and passes.
    const SmokeStatus expected = check.name == "events" ? SmokeStatus::not_applicable : SmokeStatus::pass;
    EXPECT_EQ(outcome.status, expected) << check.name << ": " << outcome.message;
    EXPECT_FALSE(outcome.message.empty()) << check.name;
  }
}

}  // namespace
}  // namespace bk
